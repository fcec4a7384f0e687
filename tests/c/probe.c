/* Probes known positions through include/canju.h, linked against the static library.
 * Usage: probe TABLE_DIR (holding KNK, KCK and KRKN under asian rules). Prints "ok". */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "canju.h"

/* Pikafish piece codes. */
enum { R_ROOK = 1, R_CANNON = 3, R_HORSE = 5, R_GENERAL = 7, B_HORSE = 13, B_GENERAL = 15 };

static int failures = 0;

#define CHECK(cond)                                                  \
    do {                                                             \
        if (!(cond)) {                                               \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                              \
        }                                                            \
    } while (0)

static int sq(int file, int rank) { return rank * 9 + file; }

int main(int argc, char **argv) {
    if (argc < 2 || !canju_init(argv[1])) {
        fprintf(stderr, "usage: probe TABLE_DIR\n");
        return 2;
    }
    CHECK(canju_largest() == 4);

    /* 3k5/9/9/9/9/9/9/4N4/9/4K4 w: the horse mates in 5 plies. */
    uint8_t board[90];
    memset(board, 0, sizeof board);
    board[sq(3, 9)] = B_GENERAL;
    board[sq(4, 2)] = R_HORSE;
    board[sq(4, 0)] = R_GENERAL;
    int dtm = 0;
    CHECK(canju_probe_wdl(board, 0) == CANJU_WIN);
    CHECK(canju_probe_dtm(board, 0, &dtm) == CANJU_WIN && dtm == 5);
    unsigned results[CANJU_MAX_MOVES + 1];
    CHECK(canju_probe_root(board, 0, results) == CANJU_WIN);
    int n = 0;
    while (results[n] != CANJU_FAILED) n++;
    CHECK(n == 10);
    /* The best move, e2d4, keeps the win in 5. */
    CHECK(CANJU_GET_FROM(results[0]) == sq(4, 2) && CANJU_GET_TO(results[0]) == sq(3, 4));
    CHECK(CANJU_GET_WDL(results[0]) == CANJU_WIN && CANJU_GET_DTM(results[0]) == 5);

    /* Black to move in the same position loses in 12. */
    CHECK(canju_probe_dtm(board, 1, &dtm) == CANJU_LOSS && dtm == -12);

    /* 4k4/9/9/9/9/9/9/9/9/3K3C1 w: a lone cannon draws. */
    memset(board, 0, sizeof board);
    board[sq(4, 9)] = B_GENERAL;
    board[sq(3, 0)] = R_GENERAL;
    board[sq(7, 0)] = R_CANNON;
    CHECK(canju_probe_dtm(board, 0, &dtm) == CANJU_DRAW && dtm == 0);

    /* 9/9/4k4/9/9/9/9/9/1n7/R2K5 w: won by the perpetual-check rule. */
    memset(board, 0, sizeof board);
    board[sq(4, 7)] = B_GENERAL;
    board[sq(1, 1)] = B_HORSE;
    board[sq(0, 0)] = R_ROOK;
    board[sq(3, 0)] = R_GENERAL;
    CHECK(canju_probe_wdl(board, 0) == CANJU_WIN_BY_RULE);
    CHECK(canju_probe_wdl(board, 1) == CANJU_FAILED); /* black to move: red is in check */

    /* Generals facing on an open file: illegal. */
    memset(board, 0, sizeof board);
    board[sq(4, 9)] = B_GENERAL;
    board[sq(4, 0)] = R_GENERAL;
    CHECK(canju_probe_wdl(board, 0) == CANJU_FAILED);
    CHECK(canju_probe_root(board, 0, results) == CANJU_FAILED && results[0] == CANJU_FAILED);

    /* Two horses: no such table here. */
    memset(board, 0, sizeof board);
    board[sq(3, 9)] = B_GENERAL;
    board[sq(4, 0)] = R_GENERAL;
    board[sq(0, 0)] = R_HORSE;
    board[sq(8, 0)] = R_HORSE;
    CHECK(canju_probe_wdl(board, 0) == CANJU_FAILED);

    /* Bad arguments. */
    CHECK(canju_probe_wdl(NULL, 0) == CANJU_FAILED);
    CHECK(canju_probe_wdl(board, 2) == CANJU_FAILED);

    canju_free();
    memset(board, 0, sizeof board);
    board[sq(3, 9)] = B_GENERAL;
    board[sq(4, 2)] = R_HORSE;
    board[sq(4, 0)] = R_GENERAL;
    CHECK(canju_probe_wdl(board, 0) == CANJU_FAILED);

    if (failures) return 1;
    printf("ok\n");
    return 0;
}
