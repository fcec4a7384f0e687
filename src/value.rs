//! The value of a position for the side to move: win, draw or loss, with the distance to mate.

use std::fmt;

/// Value of a position from the side to move, with the distance to mate in plies.
/// `Loss(0)` means no legal move (checkmate or stalemate: both lose). A win's distance is odd,
/// a loss's even.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move mates in this many plies.
    Win(u16),
    /// Neither side can force a win.
    Draw,
    /// The side to move is mated in this many plies.
    Loss(u16),
}

/// Stored form: distance `n` (odd = win, even = loss), or one of these markers.
pub(crate) const STORED_DRAW: u16 = 0xFFFE;
/// Stored form of a slot that holds no legal position.
pub(crate) const STORED_ILLEGAL: u16 = 0xFFFF;
/// Largest distance the stored form can hold.
pub(crate) const MAX_DISTANCE: u16 = 0x7FFF;

impl Value {
    /// The value one ply earlier: what the side to move has if a move leads to `self` for the
    /// opponent.
    pub fn parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// A number that grows with how good the value is for the side to move: fast wins first,
    /// then slow wins, draws, slow losses, fast losses.
    pub fn goodness(self) -> i32 {
        match self {
            Value::Win(n) => 100_000 - n as i32,
            Value::Draw => 0,
            Value::Loss(n) => -100_000 + n as i32,
        }
    }

    /// "win", "draw" or "loss".
    pub fn wdl_name(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Draw => "draw",
            Value::Loss(_) => "loss",
        }
    }

    /// The distance to mate in plies, `None` for a draw.
    pub fn distance(self) -> Option<u16> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw => None,
        }
    }

    #[cfg(test)]
    pub(crate) fn to_stored(self) -> u16 {
        match self {
            Value::Win(n) | Value::Loss(n) => n,
            Value::Draw => STORED_DRAW,
        }
    }

    /// `None` for the illegal marker and for undecided generator states.
    pub(crate) fn from_stored(v: u16) -> Option<Value> {
        match v {
            STORED_DRAW => Some(Value::Draw),
            n if n <= MAX_DISTANCE => Some(if n % 2 == 1 {
                Value::Win(n)
            } else {
                Value::Loss(n)
            }),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n}"),
            Value::Draw => f.write_str("draw"),
            Value::Loss(n) => write!(f, "loss in {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_round_trip_and_order() {
        for v in [
            Value::Win(1),
            Value::Win(31),
            Value::Draw,
            Value::Loss(0),
            Value::Loss(40),
        ] {
            assert_eq!(Value::from_stored(v.to_stored()), Some(v));
        }
        assert_eq!(Value::from_stored(STORED_ILLEGAL), None);
        assert!(Value::Win(1).goodness() > Value::Win(3).goodness());
        assert!(Value::Win(99).goodness() > Value::Draw.goodness());
        assert!(Value::Loss(10).goodness() > Value::Loss(2).goodness());
        assert_eq!(Value::Loss(0).parent(), Value::Win(1));
    }
}
