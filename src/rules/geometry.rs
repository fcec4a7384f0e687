//! Move geometry tables, built at compile time: rays for rooks and cannons, horse moves with
//! their legs, and the reverse horse table used to detect checks.

/// Ray directions: north (towards black), south, east (towards file i), west.
pub(crate) const DIRECTIONS: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];

/// Squares along each ray from a square, nearest first.
pub(crate) struct Rays {
    pub squares: [[[u8; 9]; 4]; 90],
    pub len: [[u8; 4]; 90],
}

const fn on_board(f: i8, r: i8) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn build_rays() -> Rays {
    let mut rays = Rays {
        squares: [[[0; 9]; 4]; 90],
        len: [[0; 4]; 90],
    };
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIRECTIONS[d];
            let mut f = (sq % 9) as i8 + df;
            let mut r = (sq / 9) as i8 + dr;
            let mut n = 0;
            while on_board(f, r) {
                rays.squares[sq][d][n] = (r * 9 + f) as u8;
                n += 1;
                f += df;
                r += dr;
            }
            rays.len[sq][d] = n as u8;
            d += 1;
        }
        sq += 1;
    }
    rays
}

pub(crate) static RAYS: Rays = build_rays();

/// Horse jumps as (file step, rank step, leg file step, leg rank step).
const HORSE_JUMPS: [(i8, i8, i8, i8); 8] = [
    (1, 2, 0, 1),
    (-1, 2, 0, 1),
    (1, -2, 0, -1),
    (-1, -2, 0, -1),
    (2, 1, 1, 0),
    (2, -1, 1, 0),
    (-2, 1, -1, 0),
    (-2, -1, -1, 0),
];

/// Up to eight (target, leg) or (source, leg) pairs per square.
pub(crate) struct HorseTable {
    pub entries: [[(u8, u8); 8]; 90],
    pub len: [u8; 90],
}

/// `forward`: the horse stands on the square and jumps; otherwise the table lists the horses
/// that could jump onto the square, each with the leg that must be empty.
const fn build_horse(forward: bool) -> HorseTable {
    let mut t = HorseTable {
        entries: [[(0, 0); 8]; 90],
        len: [0; 90],
    };
    let mut sq = 0;
    while sq < 90 {
        let f0 = (sq % 9) as i8;
        let r0 = (sq / 9) as i8;
        let mut j = 0;
        let mut n = 0;
        while j < 8 {
            let (df, dr, lf, lr) = HORSE_JUMPS[j];
            // forward: from = sq, to = sq + d. Reverse: from = sq - d, to = sq.
            let (ff, fr) = if forward {
                (f0, r0)
            } else {
                (f0 - df, r0 - dr)
            };
            let (tf, tr) = (ff + df, fr + dr);
            if on_board(ff, fr) && on_board(tf, tr) {
                let leg = ((fr + lr) * 9 + ff + lf) as u8;
                let other = if forward { tr * 9 + tf } else { fr * 9 + ff } as u8;
                t.entries[sq][n] = (other, leg);
                n += 1;
            }
            j += 1;
        }
        t.len[sq] = n as u8;
        sq += 1;
    }
    t
}

/// Horse moves from a square: (target, leg).
pub(crate) static HORSE_MOVES: HorseTable = build_horse(true);
/// Horses that attack a square: (source, leg).
pub(crate) static HORSE_SOURCES: HorseTable = build_horse(false);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corner_rays_and_horse() {
        // a0: north ray has 9 squares, east ray 8, south and west none.
        assert_eq!(RAYS.len[0], [9, 0, 8, 0]);
        assert_eq!(RAYS.squares[0][0][0], 9);
        assert_eq!(HORSE_MOVES.len[0], 2);
        assert_eq!(HORSE_MOVES.len[40], 8);
        // A horse on b0 (1) reaching c2 (20) needs b1 (10) empty; c2 has 8 sources.
        let src = &HORSE_SOURCES.entries[20][..HORSE_SOURCES.len[20] as usize];
        assert!(src.contains(&(1, 10)));
        assert_eq!(src.len(), 8);
    }
}
