//! The value of a position for the side to move: win, draw or loss, with the distance to mate,
//! or a result decided by the perpetual-check rule.

use crate::probe::RuleSet;
use std::fmt;

/// Value of a position from the side to move.
///
/// `Win(n)`/`Loss(n)`: mate in `n` plies with best play (the winner shortest, the loser
/// longest); `Loss(0)` means no legal move (checkmate or stalemate: both lose). A win's
/// distance is odd, a loss's even.
///
/// `WinByRule`/`LossByRule` (rule set `asian` only): no side can force mate, but one side
/// can avoid losing only by checking on every move forever (perpetual check, 長將), which the
/// rule forbids: that side loses. These carry no distance: the winner cannot force mate, it
/// forces the opponent to break the rule or leave the drawing zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move mates in this many plies.
    Win(u16),
    /// The side to move wins because the opponent can only check perpetually.
    WinByRule,
    /// Neither side can force a win.
    Draw,
    /// The side to move can only check perpetually and so loses by the rule.
    LossByRule,
    /// The side to move is mated in this many plies.
    Loss(u16),
}

/// Stored form: distance `n` (odd = win, even = loss), or one of these markers.
pub(crate) const STORED_DRAW: u16 = 0xFFFE;
/// Stored form of a slot that holds no legal position.
pub(crate) const STORED_ILLEGAL: u16 = 0xFFFF;
/// Stored form of [`Value::WinByRule`].
pub(crate) const STORED_RULE_WIN: u16 = 0xFFFC;
/// Stored form of [`Value::LossByRule`].
pub(crate) const STORED_RULE_LOSS: u16 = 0xFFFD;
/// Largest distance the stored form can hold.
pub(crate) const MAX_DISTANCE: u16 = 0x7FFF;

impl Value {
    /// The value one ply earlier: what the side to move has if a move leads to `self` for the
    /// opponent.
    pub fn parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::WinByRule => Value::LossByRule,
            Value::LossByRule => Value::WinByRule,
            Value::Draw => Value::Draw,
        }
    }

    /// A number that grows with how good the value is for the side to move: fast mates first,
    /// then slow mates, wins by rule, draws, losses by rule, slow losses, fast losses.
    pub fn goodness(self) -> i32 {
        match self {
            Value::Win(n) => 100_000 - n as i32,
            Value::WinByRule => 1,
            Value::Draw => 0,
            Value::LossByRule => -1,
            Value::Loss(n) => -100_000 + n as i32,
        }
    }

    /// True for both kinds of win.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Win(_) | Value::WinByRule)
    }

    /// True for both kinds of loss.
    pub fn is_loss(self) -> bool {
        matches!(self, Value::Loss(_) | Value::LossByRule)
    }

    /// True if the perpetual-check rule decided this value.
    pub fn is_by_rule(self) -> bool {
        matches!(self, Value::WinByRule | Value::LossByRule)
    }

    /// "win", "draw" or "loss".
    pub fn wdl_name(self) -> &'static str {
        match self {
            Value::Win(_) | Value::WinByRule => "win",
            Value::Draw => "draw",
            Value::Loss(_) | Value::LossByRule => "loss",
        }
    }

    /// The distance to mate in plies; `None` for draws and results decided by the rule.
    pub fn distance(self) -> Option<u16> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            _ => None,
        }
    }

    /// The value of the position a move leads to, for the side to move there, given the
    /// move's value `self` for the side making it (the inverse of [`Value::parent`]).
    pub fn child(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n.saturating_sub(1)),
            Value::Loss(n) => Value::Win(n.saturating_sub(1)),
            Value::WinByRule => Value::LossByRule,
            Value::LossByRule => Value::WinByRule,
            Value::Draw => Value::Draw,
        }
    }

    /// The value's category as the JSON reports name it: `win`, `loss`, `draw`,
    /// `win-by-rule` or `loss-by-rule`.
    pub fn category(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::WinByRule => "win-by-rule",
            Value::Draw => "draw",
            Value::LossByRule => "loss-by-rule",
            Value::Loss(_) => "loss",
        }
    }

    /// Plies to mate, signed from the side to move: positive when it mates, negative (or 0:
    /// no legal move) when it is mated; `None` for draws and results decided by the rule.
    pub fn signed_dtm(self) -> Option<i32> {
        match self {
            Value::Win(n) => Some(i32::from(n)),
            Value::Loss(n) => Some(-i32::from(n)),
            _ => None,
        }
    }

    /// The repetition rule of `rules` that decides this value ([`RuleSet::rule_label`]), or
    /// `None` when play decides it.
    pub fn rule(self, rules: RuleSet) -> Option<&'static str> {
        self.is_by_rule().then(|| rules.rule_label())
    }

    pub(crate) fn to_stored(self) -> u16 {
        match self {
            Value::Win(n) | Value::Loss(n) => n,
            Value::WinByRule => STORED_RULE_WIN,
            Value::LossByRule => STORED_RULE_LOSS,
            Value::Draw => STORED_DRAW,
        }
    }

    /// `None` for the illegal marker and for undecided generator states.
    pub(crate) fn from_stored(v: u16) -> Option<Value> {
        match v {
            STORED_DRAW => Some(Value::Draw),
            STORED_RULE_WIN => Some(Value::WinByRule),
            STORED_RULE_LOSS => Some(Value::LossByRule),
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
            Value::WinByRule => f.write_str("win by the repetition rule"),
            Value::Draw => f.write_str("draw"),
            Value::LossByRule => f.write_str("loss by the repetition rule"),
            Value::Loss(n) => write!(f, "loss in {n}"),
        }
    }
}

/// A position's result without its distance to mate: what a table generated with
/// `--wdl-only` holds, and what every value comes down to ([`From<Value>`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The side to move can force mate.
    Win,
    /// The side to move wins because the opponent can only check perpetually.
    WinByRule,
    /// Neither side can force a win.
    Draw,
    /// The side to move can only check perpetually and so loses by the rule.
    LossByRule,
    /// The side to move is mated with best play.
    Loss,
}

impl From<Value> for Outcome {
    fn from(v: Value) -> Outcome {
        match v {
            Value::Win(_) => Outcome::Win,
            Value::WinByRule => Outcome::WinByRule,
            Value::Draw => Outcome::Draw,
            Value::LossByRule => Outcome::LossByRule,
            Value::Loss(_) => Outcome::Loss,
        }
    }
}

impl Outcome {
    /// A value with this outcome (distances of 1 and 0 plies stand for the unknown ones):
    /// what the value's names and categories are taken from, and what the generator reads
    /// of a table without distances.
    pub(crate) fn stand_in(self) -> Value {
        match self {
            Outcome::Win => Value::Win(1),
            Outcome::WinByRule => Value::WinByRule,
            Outcome::Draw => Value::Draw,
            Outcome::LossByRule => Value::LossByRule,
            Outcome::Loss => Value::Loss(0),
        }
    }

    /// The outcome one ply earlier, for the side whose move leads to `self`.
    pub fn parent(self) -> Outcome {
        self.stand_in().parent().into()
    }

    /// Wins first, then wins by rule, draws, losses by rule and losses.
    pub fn goodness(self) -> i32 {
        self.stand_in().goodness()
    }

    /// "win", "draw" or "loss".
    pub fn wdl_name(self) -> &'static str {
        self.stand_in().wdl_name()
    }

    /// As [`Value::category`].
    pub fn category(self) -> &'static str {
        self.stand_in().category()
    }

    /// As [`Value::rule`].
    pub fn rule(self, rules: RuleSet) -> Option<&'static str> {
        self.stand_in().rule(rules)
    }
}

/// What reports show of a position for its side to move: a [`Value`], with its distance, or
/// an [`Outcome`], from a table without distances.
pub trait Standing: Copy + fmt::Display {
    /// "win", "draw" or "loss".
    fn wdl_name(self) -> &'static str;
    /// As [`Value::category`].
    fn category(self) -> &'static str;
    /// As [`Value::rule`].
    fn rule(self, rules: RuleSet) -> Option<&'static str>;
    /// Signed plies to mate, if known.
    fn signed_dtm(self) -> Option<i32>;
    /// The standing after a move whose standing for the mover is `self`, for the side to
    /// move there.
    fn child(self) -> Self;
    /// The standing for the mover of a move that leaves `self` (the inverse of `child`).
    fn parent(self) -> Self;
    /// Larger for better standings of the side to move (the order moves are listed in).
    fn goodness(self) -> i32;
}

impl Standing for Value {
    fn wdl_name(self) -> &'static str {
        Value::wdl_name(self)
    }
    fn category(self) -> &'static str {
        Value::category(self)
    }
    fn rule(self, rules: RuleSet) -> Option<&'static str> {
        Value::rule(self, rules)
    }
    fn signed_dtm(self) -> Option<i32> {
        Value::signed_dtm(self)
    }
    fn child(self) -> Value {
        Value::child(self)
    }
    fn parent(self) -> Value {
        Value::parent(self)
    }
    fn goodness(self) -> i32 {
        Value::goodness(self)
    }
}

impl Standing for Outcome {
    fn wdl_name(self) -> &'static str {
        Outcome::wdl_name(self)
    }
    fn category(self) -> &'static str {
        Outcome::category(self)
    }
    fn rule(self, rules: RuleSet) -> Option<&'static str> {
        Outcome::rule(self, rules)
    }
    fn signed_dtm(self) -> Option<i32> {
        None
    }
    fn child(self) -> Outcome {
        Outcome::parent(self)
    }
    fn parent(self) -> Outcome {
        Outcome::parent(self)
    }
    fn goodness(self) -> i32 {
        Outcome::goodness(self)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win => f.write_str("win"),
            Outcome::Loss => f.write_str("loss"),
            other => write!(f, "{}", other.stand_in()),
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
            Value::WinByRule,
            Value::Draw,
            Value::LossByRule,
            Value::Loss(0),
            Value::Loss(40),
        ] {
            assert_eq!(Value::from_stored(v.to_stored()), Some(v));
            assert_eq!(v.parent().parent().distance().map(|d| d - 2), v.distance());
        }
        assert_eq!(Value::from_stored(STORED_ILLEGAL), None);
        assert!(Value::Win(1).goodness() > Value::Win(3).goodness());
        assert!(Value::Win(99).goodness() > Value::WinByRule.goodness());
        assert!(Value::WinByRule.goodness() > Value::Draw.goodness());
        assert!(Value::LossByRule.goodness() > Value::Loss(200).goodness());
        assert!(Value::Loss(10).goodness() > Value::Loss(2).goodness());
        assert_eq!(Value::Loss(0).parent(), Value::Win(1));
    }

    #[test]
    fn categories_and_signed_distances() {
        assert_eq!(Value::Win(5).signed_dtm(), Some(5));
        assert_eq!(Value::Loss(4).signed_dtm(), Some(-4));
        assert_eq!(Value::Loss(0).signed_dtm(), Some(0));
        assert_eq!(Value::WinByRule.signed_dtm(), None);
        assert_eq!(Value::Draw.signed_dtm(), None);
        assert_eq!(Value::LossByRule.category(), "loss-by-rule");
        assert_eq!(
            Value::WinByRule.rule(RuleSet::Asian),
            Some("perpetual-check")
        );
        assert_eq!(
            Value::LossByRule.rule(RuleSet::Chase),
            Some("perpetual-attack")
        );
        assert_eq!(Value::Win(1).rule(RuleSet::Asian), None);
        assert_eq!(Value::Loss(2).category(), "loss");
        for v in [Value::Win(3), Value::Loss(4), Value::WinByRule, Value::Draw] {
            assert_eq!(v.parent().child(), v);
        }
    }
}
