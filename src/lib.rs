//! canju (殘局): xiangqi endgame tablebases.
//!
//! ```
//! use canju::rules::Position;
//! let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
//! assert_eq!(pos.legal_moves().len(), 17);
//! ```
#![warn(missing_docs)]

pub mod capi;
pub mod cycle;
pub mod display;
#[doc(hidden)]
pub mod fuzzing;
pub mod generate;
pub mod index;
pub mod material;
pub mod probe;
pub mod report;
pub mod rules;
pub mod service;
pub mod table;
pub mod theory;
mod trace;
pub mod value;
pub mod verify;

/// The README's Rust example, compiled and run as a doctest so that it keeps working.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
