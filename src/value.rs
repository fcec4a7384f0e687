//! The value of a position for the side to move: win, draw or loss, with the distance to mate,
//! or a result decided by a repetition rule ([`Rule`]).

use std::fmt;

/// Value of a position from the side to move.
///
/// `Win(n)`/`Loss(n)`: mate in `n` plies with best play (the winner shortest, the loser
/// longest); `Loss(0)` means no legal move (checkmate or stalemate: both lose). A win's
/// distance is odd, a loss's even.
///
/// `WinByRule`/`LossByRule` (rule sets `check` and `asian`): no side can force mate, but one
/// side can avoid losing only by attacking on every move forever (perpetual check 長將, or
/// under `asian` perpetual chase 長捉 or both), which the rule forbids: that side loses. These
/// carry no distance: the winner cannot force mate, it forces the opponent to break the rule
/// or leave the drawing zone. The [`Rule`] says which attack decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move mates in this many plies.
    Win(u16),
    /// The side to move wins because the opponent can only attack perpetually.
    WinByRule(Rule),
    /// Neither side can force a win.
    Draw,
    /// The side to move can only attack perpetually and so loses by the rule.
    LossByRule(Rule),
    /// The side to move is mated in this many plies.
    Loss(u16),
}

/// The repetition rule that decides a result by the rule: what the losing side could only
/// go on doing forever. Where several would do, the first of these: a loser that can hold
/// by checking and chasing but is caught by the rule against checks alone is a
/// `PerpetualCheck`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Perpetual check (長將): the winner wins even if chases count as idle moves.
    PerpetualCheck,
    /// Perpetual chase (長捉): the winner wins even if the loser's checks count as idle
    /// moves, but not by the perpetual-check rule alone.
    PerpetualChase,
    /// Checks and chases together (一將一捉 and the like): neither alone decides.
    Mixed,
}

impl Rule {
    /// Every rule, in the order of [`Rule::index`].
    pub const ALL: [Rule; 3] = [Rule::PerpetualCheck, Rule::PerpetualChase, Rule::Mixed];

    /// 0, 1 or 2, as [`Rule::ALL`] lists them.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The label reports give: `perpetual-check`, `perpetual-chase` or `mixed`.
    pub fn label(self) -> &'static str {
        match self {
            Rule::PerpetualCheck => "perpetual-check",
            Rule::PerpetualChase => "perpetual-chase",
            Rule::Mixed => "mixed",
        }
    }

    /// The rule in words, for text: "the perpetual-check rule (長將)" ...
    pub fn words(self) -> &'static str {
        match self {
            Rule::PerpetualCheck => "the perpetual-check rule (長將)",
            Rule::PerpetualChase => "the perpetual-chase rule (長捉)",
            Rule::Mixed => "the rule against perpetual attack by checks and chases (一將一捉)",
        }
    }

    /// The rule's Chinese name: 长将, 长捉, or 长打 (perpetual attack, checks and chases
    /// together).
    pub fn chinese(self) -> &'static str {
        match self {
            Rule::PerpetualCheck => "长将",
            Rule::PerpetualChase => "长捉",
            Rule::Mixed => "长打",
        }
    }

    /// What the losing side could only do forever: "checking", "chasing" or "checking and
    /// chasing".
    pub fn forbidden_play(self) -> &'static str {
        match self {
            Rule::PerpetualCheck => "checking",
            Rule::PerpetualChase => "chasing",
            Rule::Mixed => "checking and chasing",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Stored form: distance `n` (odd = win, even = loss), or one of these markers.
pub(crate) const STORED_DRAW: u16 = 0xFFFE;
/// Stored form of a slot that holds no legal position.
pub(crate) const STORED_ILLEGAL: u16 = 0xFFFF;
/// Stored form of [`Value::WinByRule`] by [`Rule::PerpetualCheck`]; the other rules' are
/// the next even values down ([`stored_rule_win`]).
pub(crate) const STORED_RULE_WIN: u16 = 0xFFFC;
/// Stored form of [`Value::LossByRule`] by [`Rule::PerpetualCheck`]; the other rules' are
/// the next odd values down ([`stored_rule_loss`]).
pub(crate) const STORED_RULE_LOSS: u16 = 0xFFFD;
/// The lowest stored form of a result by the rule.
pub(crate) const STORED_RULE_LOWEST: u16 = STORED_RULE_WIN - 4;

/// The stored form of a win by `rule`: 0xFFFC, 0xFFFA, 0xFFF8.
pub(crate) const fn stored_rule_win(rule: Rule) -> u16 {
    STORED_RULE_WIN - 2 * rule as u16
}

/// The stored form of a loss by `rule`: 0xFFFD, 0xFFFB, 0xFFF9.
pub(crate) const fn stored_rule_loss(rule: Rule) -> u16 {
    STORED_RULE_LOSS - 2 * rule as u16
}

/// For a stored result by the rule, whether it is a win and by which rule.
pub(crate) fn rule_of_stored(v: u16) -> Option<(bool, Rule)> {
    (STORED_RULE_LOWEST..=STORED_RULE_LOSS)
        .contains(&v)
        .then(|| {
            let k = (STORED_RULE_LOSS - v) / 2;
            (v.is_multiple_of(2), Rule::ALL[k as usize])
        })
}
/// Largest distance the stored form can hold.
pub(crate) const MAX_DISTANCE: u16 = 0x7FFF;

impl Value {
    /// The value one ply earlier: what the side to move has if a move leads to `self` for the
    /// opponent.
    pub fn parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::WinByRule(r) => Value::LossByRule(r),
            Value::LossByRule(r) => Value::WinByRule(r),
            Value::Draw => Value::Draw,
        }
    }

    /// A number that grows with how good the value is for the side to move: fast mates first,
    /// then slow mates, wins by rule, draws, losses by rule, slow losses, fast losses.
    pub fn goodness(self) -> i32 {
        match self {
            Value::Win(n) => 100_000 - n as i32,
            Value::WinByRule(_) => 1,
            Value::Draw => 0,
            Value::LossByRule(_) => -1,
            Value::Loss(n) => -100_000 + n as i32,
        }
    }

    /// True for both kinds of win.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Win(_) | Value::WinByRule(_))
    }

    /// True for both kinds of loss.
    pub fn is_loss(self) -> bool {
        matches!(self, Value::Loss(_) | Value::LossByRule(_))
    }

    /// True if a repetition rule decided this value.
    pub fn is_by_rule(self) -> bool {
        self.rule().is_some()
    }

    /// The repetition rule that decided this value, or `None` when play decides it.
    pub fn rule(self) -> Option<Rule> {
        match self {
            Value::WinByRule(r) | Value::LossByRule(r) => Some(r),
            _ => None,
        }
    }

    /// "win", "draw" or "loss".
    pub fn wdl_name(self) -> &'static str {
        match self {
            Value::Win(_) | Value::WinByRule(_) => "win",
            Value::Draw => "draw",
            Value::Loss(_) | Value::LossByRule(_) => "loss",
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
            Value::WinByRule(r) => Value::LossByRule(r),
            Value::LossByRule(r) => Value::WinByRule(r),
            Value::Draw => Value::Draw,
        }
    }

    /// The value's category as the JSON reports name it: `win`, `loss`, `draw`,
    /// `win-by-rule` or `loss-by-rule`.
    pub fn category(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::WinByRule(_) => "win-by-rule",
            Value::Draw => "draw",
            Value::LossByRule(_) => "loss-by-rule",
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

    pub(crate) fn to_stored(self) -> u16 {
        match self {
            Value::Win(n) | Value::Loss(n) => n,
            Value::WinByRule(r) => stored_rule_win(r),
            Value::LossByRule(r) => stored_rule_loss(r),
            Value::Draw => STORED_DRAW,
        }
    }

    /// `None` for the illegal marker and for undecided generator states.
    pub(crate) fn from_stored(v: u16) -> Option<Value> {
        match v {
            STORED_DRAW => Some(Value::Draw),
            STORED_RULE_LOWEST..=STORED_RULE_LOSS => rule_of_stored(v).map(|(win, r)| match win {
                true => Value::WinByRule(r),
                false => Value::LossByRule(r),
            }),
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
            Value::WinByRule(r) => write!(f, "win by the repetition rule ({r})"),
            Value::Draw => f.write_str("draw"),
            Value::LossByRule(r) => write!(f, "loss by the repetition rule ({r})"),
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
    /// The side to move wins because the opponent can only attack perpetually.
    WinByRule(Rule),
    /// Neither side can force a win.
    Draw,
    /// The side to move can only attack perpetually and so loses by the rule.
    LossByRule(Rule),
    /// The side to move is mated with best play.
    Loss,
}

impl From<Value> for Outcome {
    fn from(v: Value) -> Outcome {
        match v {
            Value::Win(_) => Outcome::Win,
            Value::WinByRule(r) => Outcome::WinByRule(r),
            Value::Draw => Outcome::Draw,
            Value::LossByRule(r) => Outcome::LossByRule(r),
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
            Outcome::WinByRule(r) => Value::WinByRule(r),
            Outcome::Draw => Value::Draw,
            Outcome::LossByRule(r) => Value::LossByRule(r),
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
    pub fn rule(self) -> Option<Rule> {
        self.stand_in().rule()
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
    fn rule(self) -> Option<Rule>;
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
    fn rule(self) -> Option<Rule> {
        Value::rule(self)
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
    fn rule(self) -> Option<Rule> {
        Outcome::rule(self)
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

    const CHECK: Rule = Rule::PerpetualCheck;

    #[test]
    fn stored_round_trip_and_order() {
        let mut values = vec![Value::Win(1), Value::Win(31), Value::Draw];
        values.extend([Value::Loss(0), Value::Loss(40), Value::Win(MAX_DISTANCE)]);
        for r in Rule::ALL {
            values.extend([Value::WinByRule(r), Value::LossByRule(r)]);
        }
        for v in values {
            assert_eq!(Value::from_stored(v.to_stored()), Some(v));
            assert_eq!(v.parent().parent().distance().map(|d| d - 2), v.distance());
        }
        // Format 7's two rule forms are the perpetual-check rule's.
        assert_eq!(Value::from_stored(0xFFFC), Some(Value::WinByRule(CHECK)));
        assert_eq!(Value::from_stored(0xFFFD), Some(Value::LossByRule(CHECK)));
        assert_eq!(
            Value::from_stored(0xFFF9),
            Some(Value::LossByRule(Rule::Mixed))
        );
        assert_eq!(Value::from_stored(STORED_ILLEGAL), None);
        assert_eq!(Value::from_stored(0xFFF7), None);
        assert!(Value::Win(1).goodness() > Value::Win(3).goodness());
        assert!(Value::Win(99).goodness() > Value::WinByRule(CHECK).goodness());
        assert!(Value::WinByRule(Rule::Mixed).goodness() > Value::Draw.goodness());
        assert!(Value::LossByRule(CHECK).goodness() > Value::Loss(200).goodness());
        assert!(Value::Loss(10).goodness() > Value::Loss(2).goodness());
        assert_eq!(Value::Loss(0).parent(), Value::Win(1));
    }

    #[test]
    fn categories_and_signed_distances() {
        assert_eq!(Value::Win(5).signed_dtm(), Some(5));
        assert_eq!(Value::Loss(4).signed_dtm(), Some(-4));
        assert_eq!(Value::Loss(0).signed_dtm(), Some(0));
        assert_eq!(Value::WinByRule(CHECK).signed_dtm(), None);
        assert_eq!(Value::Draw.signed_dtm(), None);
        assert_eq!(Value::LossByRule(CHECK).category(), "loss-by-rule");
        assert_eq!(Value::WinByRule(CHECK).rule(), Some(CHECK));
        assert_eq!(
            Value::LossByRule(Rule::PerpetualChase)
                .rule()
                .map(Rule::label),
            Some("perpetual-chase")
        );
        assert_eq!(Value::Win(1).rule(), None);
        assert_eq!(Value::Loss(2).category(), "loss");
        for v in [
            Value::Win(3),
            Value::Loss(4),
            Value::WinByRule(CHECK),
            Value::Draw,
        ] {
            assert_eq!(v.parent().child(), v);
        }
    }
}
