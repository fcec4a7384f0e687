//! canju (殘局): xiangqi endgame tablebases.
//!
//! ```
//! use canju::rules::Position;
//! let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 w").unwrap();
//! assert_eq!(pos.legal_moves().len(), 19);
//! ```
#![warn(missing_docs)]

pub mod rules;
