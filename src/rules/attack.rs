//! What a move attacks, for the repetition rules of the 棋例: a check (將), a chase (捉) or
//! an idle move (閑).
//!
//! A quiet move is a **chase** when, after it, the mover threatens a capture that wins
//! material by the 棋例's values ([`value`]) and that it did not threaten before the move
//! (從沒捉到捉; 從捉到捉 is idle, 細則(2) and (6)). A capture *wins material* when:
//! - the target counts as material: a rook, horse, cannon, advisor, elephant or a pawn across
//!   the river (a general and an uncrossed pawn do not, 總綱1(4));
//! - the capture is legal (a pinned attacker does not chase);
//! - the target is worth more than the attacker, or it is not protected: after the capture
//!   the other side has no legal move onto its square (細則(3));
//! - it is no offer to exchange (兌): a rook, horse or cannon attacking one of its own kind
//!   that can take it back (a legal move) is idle;
//! - the other side cannot answer it with an immediate mate (細則(7)).
//!
//! The attacker is never the general (its own attacks are idle, 通則(1)); a pawn's own
//! attack is told apart ([`MoveAttack::PawnChase`]): it is idle unless both sides attack
//! perpetually (通則(3), 細則(11)). A move that checks is a check whatever else it does
//! (從重, 通則(5)). "Before the move" is the position the mover moved in, with the moved
//! piece on its old point; where the mover was in check there, its captures then count as
//! threatened if they follow the pieces' movement rules (answering a check does not create
//! the attacks it leaves standing).
//!
//! Not modelled (see the README): 長殺 (perpetual mate threats), and 細則(13)'s attacks on
//! advisors and elephants that come with taking a key defensive point.

use super::{Move, Piece, Position, Role};

/// What a move does, for the repetition rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveAttack {
    /// Neither a check nor a chase (a general's own attack included).
    Idle,
    /// A chase by a piece other than a pawn.
    Chase,
    /// A chase by pawns only: idle unless both sides attack perpetually.
    PawnChase,
    /// A check.
    Check,
}

/// A piece's value for the repetition rules (棋例 總綱1(5)): rook 4, horse and cannon 2,
/// advisor and elephant 1, a pawn across the river 1; an uncrossed pawn and the general are
/// no material (0).
pub fn value(piece: Piece, on: super::Square) -> u8 {
    match piece.role {
        Role::Rook => 4,
        Role::Horse | Role::Cannon => 2,
        Role::Advisor | Role::Elephant => 1,
        Role::Pawn => on.is_across_river(piece.color) as u8,
        Role::General => 0,
    }
}

/// One threatened capture that wins material: the attacker's point and the target's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chase {
    /// The move that would capture.
    pub capture: Move,
    /// The attacker's role.
    pub attacker: Role,
}

impl Position {
    /// What quiet legal move `mv` does for the repetition rules ([`MoveAttack`]). Stops at
    /// the first chase by a piece other than a pawn: the rule pass asks this of many moves.
    pub fn move_attack(&self, mv: Move) -> MoveAttack {
        let after = self.after(mv);
        if after.in_check() {
            return MoveAttack::Check;
        }
        let mut pawn_chase = false;
        // Stops at a chase by any other piece; a pawn's is noted and the search goes on.
        let other_chase = !self.for_each_new_chase(mv, after, |c| {
            let by_pawn = c.attacker == Role::Pawn;
            pawn_chase |= by_pawn;
            by_pawn
        });
        match (other_chase, pawn_chase) {
            (true, _) => MoveAttack::Chase,
            (false, true) => MoveAttack::PawnChase,
            (false, false) => MoveAttack::Idle,
        }
    }

    /// The captures that quiet legal move `mv` newly threatens and that win material (none
    /// if it checks): what makes it a chase.
    pub fn chases_of(&self, mv: Move) -> Vec<Chase> {
        let after = self.after(mv);
        if after.in_check() {
            return vec![];
        }
        let mut chases = vec![];
        self.for_each_new_chase(mv, after, |c| {
            chases.push(c);
            true
        });
        chases
    }

    /// Calls `f` on each chase of `mv`, whose result `after` does not check, while it returns
    /// true; false if it stopped. A chase is a capture that wins material after the move and
    /// did not before: the cheap conditions of both are tried before the mate searches, and
    /// a capture that won material before needs no mate search after. (The rule pass asks
    /// this of millions of moves, most of which threaten nothing: `after` is taken, not
    /// copied, and whether the mover was in check is found only for a threat.)
    fn for_each_new_chase(
        &self,
        mv: Move,
        after: Position,
        mut f: impl FnMut(Chase) -> bool,
    ) -> bool {
        let mut threats = after;
        threats.set_turn(self.turn());
        let legal_before = std::cell::OnceCell::new();
        let mut moves = super::MoveList::new();
        for (from, attacker) in threats.pieces() {
            if attacker.color != threats.turn() || attacker.role == Role::General {
                continue;
            }
            moves.clear();
            threats.pseudo_legal_moves_from(from, &mut moves);
            for &capture in moves.iter() {
                if !threats.is_capture(capture) {
                    continue;
                }
                let Some(taken) = threats.capture_gains(capture, true) else {
                    continue;
                };
                let origin = if capture.from == mv.to {
                    mv.from
                } else {
                    capture.from
                };
                let before = Move::new(origin, capture.to);
                let won_before = self.is_capture(before)
                    && self.follows_movement_rules(before)
                    && self
                        .capture_gains(before, *legal_before.get_or_init(|| !self.in_check()))
                        .is_some_and(|b| !b.mates_at_once());
                if won_before || taken.mates_at_once() {
                    continue;
                }
                let chase = Chase {
                    capture,
                    attacker: attacker.role,
                };
                if !f(chase) {
                    return false;
                }
            }
        }
        true
    }

    /// The position after `capture` by the side to move if the capture wins material (see
    /// the module's rules) but for the last condition, the answer by an immediate mate (the
    /// costly part, left to the caller). The capture must follow the movement rules (it is not
    /// asked whether it does), and be legal if `legal`.
    fn capture_gains(&self, capture: Move, legal: bool) -> Option<Position> {
        let (Some(attacker), Some(target)) =
            (self.piece_at(capture.from), self.piece_at(capture.to))
        else {
            return None;
        };
        let worth = value(target, capture.to);
        if attacker.color != self.turn()
            || target.color == self.turn()
            || attacker.role == Role::General
            || worth == 0
            || (legal
                && !self
                    .clone()
                    .is_pseudo_legal_move_legal(capture, self.in_check()))
            || self.offers_exchange(capture, attacker, target)
        {
            return None;
        }
        let after = self.after(capture);
        let gains = worth > value(attacker, capture.from) || !after.can_move_onto(capture.to);
        gains.then_some(after)
    }

    /// True if `mv` follows the movement rules here.
    fn follows_movement_rules(&self, mv: Move) -> bool {
        let mut moves = super::MoveList::new();
        self.pseudo_legal_moves_from(mv.from, &mut moves);
        moves.iter().any(|m| *m == mv)
    }

    /// True if `capture` offers an exchange: a rook, horse or cannon attacking one of its own
    /// kind that could legally take it back.
    fn offers_exchange(&self, capture: Move, attacker: Piece, target: Piece) -> bool {
        if attacker.role != target.role
            || !matches!(attacker.role, Role::Rook | Role::Horse | Role::Cannon)
        {
            return false;
        }
        let mut theirs = self.clone();
        theirs.set_turn(self.turn().opponent());
        let back = Move::new(capture.to, capture.from);
        theirs.follows_movement_rules(back) && {
            let in_check = theirs.in_check();
            theirs.is_pseudo_legal_move_legal(back, in_check)
        }
    }

    /// True if the side to move has a legal move onto `to`.
    fn can_move_onto(&self, to: super::Square) -> bool {
        if !self.is_attacked(to, self.turn()) {
            return false;
        }
        let (mut scratch, in_check) = (self.clone(), self.in_check());
        self.pseudo_legal_moves()
            .iter()
            .any(|&m| m.to == to && scratch.is_pseudo_legal_move_legal(m, in_check))
    }

    /// True if the side to move can win at once: a legal move that leaves the other side no
    /// legal move, in check or not (將死 or 困毙: both lose in xiangqi).
    fn mates_at_once(&self) -> bool {
        let mut scratch = self.clone();
        let them = self.turn().opponent();
        self.pseudo_legal_moves().iter().any(|&m| {
            let captured = scratch.make(m);
            let mates = !scratch.is_in_check(self.turn()) && {
                let in_check = scratch.is_in_check(them);
                !scratch.has_legal_move_knowing_check(in_check)
            };
            scratch.unmake(m, captured);
            mates
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Position::move_attack`] as the rules read, every capture weighed in full after the
    /// move and before it: the oracle for the shortcuts of [`Position::for_each_new_chase`].
    fn attack_as_stated(pos: &Position, mv: Move) -> MoveAttack {
        let wins = |p: &Position, capture: Move, legal: bool| {
            p.is_capture(capture)
                && p.follows_movement_rules(capture)
                && p.capture_gains(capture, legal)
                    .is_some_and(|taken| !taken.mates_at_once())
        };
        let after = pos.after(mv);
        if after.in_check() {
            return MoveAttack::Check;
        }
        let mut threats = after.clone();
        threats.set_turn(pos.turn());
        let mut attackers = vec![];
        for capture in threats.pseudo_legal_moves().iter().copied() {
            let attacker = threats.piece_at(capture.from).unwrap().role;
            let origin = if capture.from == mv.to {
                mv.from
            } else {
                capture.from
            };
            if wins(&threats, capture, true)
                && !wins(pos, Move::new(origin, capture.to), !pos.in_check())
            {
                attackers.push(attacker);
            }
        }
        if attackers.iter().any(|&r| r != Role::Pawn) {
            MoveAttack::Chase
        } else if attackers.is_empty() {
            MoveAttack::Idle
        } else {
            MoveAttack::PawnChase
        }
    }

    fn attack(fen: &str, iccs: &str) -> MoveAttack {
        let pos = Position::from_fen(fen).unwrap();
        let mv = Move::parse_iccs(iccs).unwrap();
        assert!(pos.is_legal(mv), "{iccs} is legal in {fen}");
        pos.move_attack(mv)
    }

    #[test]
    fn the_issues_examples_chase() {
        // KRNKR: the black rook e4-e3 attacks the unprotected horse on d3.
        assert_eq!(
            attack("9/4k4/9/9/9/4r4/3N5/3K5/9/5R3 b", "e4e3"),
            MoveAttack::Chase
        );
        // KRKNC: the red rook b0-b4 attacks the cannon on d4, which nothing protects.
        assert_eq!(
            attack("9/9/4k4/9/2n6/3c5/9/9/9/1R1K5 w", "b0b4"),
            MoveAttack::Chase
        );
        // KCCKN: the black horse d1-f2 attacks the unprotected cannon on d3.
        assert_eq!(
            attack("9/9/3k5/9/9/9/3C5/2C6/3n5/3K5 b", "d1f2"),
            MoveAttack::Chase
        );
    }

    #[test]
    fn checks_are_checks() {
        assert_eq!(
            attack("3k5/9/9/9/9/9/9/9/9/R3K4 w", "a0a9"),
            MoveAttack::Check
        );
    }

    #[test]
    fn a_protected_piece_of_equal_value_is_not_chased() {
        // The rook attacks a horse protected by its general: idle. Unprotected: a chase.
        assert_eq!(
            attack("3k5/3n5/9/9/9/9/9/9/9/R3K4 w", "a0a8"),
            MoveAttack::Idle
        );
        assert_eq!(
            attack("3k5/9/9/9/9/9/9/2n6/9/R3K4 w", "a0a2"),
            MoveAttack::Chase
        );
    }

    #[test]
    fn a_horse_attacking_a_protected_rook_chases() {
        assert_eq!(
            attack("4k4/4r4/9/9/9/2N6/9/9/9/5K3 w", "c4b6"),
            MoveAttack::Idle,
            "b6 attacks nothing"
        );
        assert_eq!(
            attack("4k4/4r4/9/9/9/2N6/9/9/9/5K3 w", "c4d6"),
            MoveAttack::Chase,
            "the rook on e8 is protected by its general, but worth more"
        );
    }

    #[test]
    fn the_generals_own_attack_is_idle() {
        assert_eq!(
            attack("9/9/5k3/9/9/9/9/9/4n4/3K5 w", "d0e0"),
            MoveAttack::Idle
        );
    }

    #[test]
    fn an_attack_that_stood_before_the_move_is_not_new() {
        // The rook already attacked the horse on a5 from a0; moving to a1 keeps the attack.
        assert_eq!(
            attack("3k5/9/9/9/n8/9/9/9/9/R3K4 w", "a0a1"),
            MoveAttack::Idle
        );
    }

    #[test]
    fn an_exchange_offer_is_idle() {
        // Rook to a rook that can take back: idle.
        assert_eq!(
            attack("3k5/9/9/9/r8/9/9/9/9/1R2K4 w", "b0a0"),
            MoveAttack::Idle
        );
    }

    #[test]
    fn a_horse_pinned_by_the_generals_cannot_take_back() {
        // KNPKN: the red horse on d5 stands between the generals, so the black horse's
        // attack on it offers no exchange (the horse cannot take back): a chase.
        assert_eq!(
            attack("9/3k5/9/6n2/3N5/2P6/9/9/9/3K5 b", "g6f4"),
            MoveAttack::Chase
        );
    }

    #[test]
    fn chasing_two_pieces_in_turn_is_chasing_with_every_move() {
        // KNPKN (README, *The repetition rules*): the black horse chases the crossed pawn on
        // c5, the pawn steps aside to b5 and no longer guards the pinned horse on d5, which
        // the black horse chases next; xiangqitb asks for one target throughout.
        assert_eq!(
            attack("9/3k5/9/9/2PN5/5n3/9/9/9/3K5 b", "f4e6"),
            MoveAttack::Chase
        );
        assert_eq!(
            attack("9/3k5/9/4n4/1P1N5/9/9/9/9/3K5 b", "e6f4"),
            MoveAttack::Chase
        );
    }

    #[test]
    fn a_pawns_own_attack_is_a_pawn_chase() {
        // A crossed red pawn steps beside an unprotected black horse.
        assert_eq!(
            attack("3k5/9/9/9/2n5P/9/9/9/9/4K4 w", "i5h5"),
            MoveAttack::Idle,
            "h5 does not reach the horse on c5"
        );
        assert_eq!(
            attack("3k5/9/9/9/P1n6/9/9/9/9/4K4 w", "a5b5"),
            MoveAttack::PawnChase
        );
    }

    #[test]
    fn the_shortcuts_agree_with_the_rules_as_stated() {
        use crate::index::MaterialIndex;
        use crate::material::Material;
        use crate::rules::Color;
        let mut seen = [0usize; 4];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for name in [
            "KRNKR", "KRCKR", "KNPKN", "KCPKN", "KRKNC", "KNNKAB", "KRPKCA",
        ] {
            let index = MaterialIndex::new(Material::parse(name).unwrap());
            let mut tried = 0;
            while tried < 400 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let slot = (state >> 11) % index.size();
                let turn = [Color::Red, Color::Black][(state >> 7) as usize & 1];
                let Some(pos) = index.decode(slot, turn).filter(|p| p.validate().is_ok()) else {
                    continue;
                };
                tried += 1;
                for &mv in pos.legal_moves().iter().filter(|&&m| !pos.is_capture(m)) {
                    let fast = pos.move_attack(mv);
                    assert_eq!(
                        fast,
                        attack_as_stated(&pos, mv),
                        "{} {}",
                        pos.fen(),
                        mv.iccs()
                    );
                    let chases = pos.chases_of(mv);
                    assert_eq!(
                        chases.is_empty(),
                        matches!(fast, MoveAttack::Idle | MoveAttack::Check)
                    );
                    seen[fast as usize] += 1;
                }
            }
        }
        assert!(
            seen.iter().all(|&n| n > 0),
            "every kind of move met: {seen:?}"
        );
    }
}
