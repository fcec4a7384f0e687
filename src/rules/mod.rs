//! The rules of xiangqi: board, pieces, FEN, legal moves, un-moves and notation.

pub mod attack;
mod geometry;
pub mod movegen;
pub mod notation;
pub mod position;
pub mod retro;
pub mod types;

pub use attack::MoveAttack;
pub use movegen::MoveList;
pub use notation::{MoveParseError, Notation};
pub use position::{Captured, FenError, IllegalPosition, Position, PositionError, START_FEN};
pub use retro::UnMove;
pub use types::{Color, Move, Piece, Role, Square};
