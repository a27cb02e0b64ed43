/*
 * The bare pipe runner that `benches/match.sh` sets beside `match`: it plays
 * GAMES games of 3x3 tic-tac-toe between two bot executables speaking the bot
 * protocol (FORMAT.md, "Matches and tournaments"), each bot a fresh process
 * for each game on two pipes, with no sandbox, no clock, no record and no
 * checks beyond the rules. What it costs a game is the floor a referee that
 * starts processes can reach; issue 38 asks `match` to stay within 3 times it.
 *
 *   cc -O2 -o bare_runner benches/bare_runner.c
 *   ./bare_runner 200 ./bot-a ./bot-b
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct bot {
    pid_t pid;
    FILE *to;
    FILE *from;
};

static struct bot start(const char *path) {
    int in[2], out[2];
    /* Close-on-exec: the other bot must not hold this one's pipes open. */
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
        perror("pipe");
        exit(2);
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    struct bot bot = {pid, fdopen(in[1], "w"), fdopen(out[0], "r")};
    return bot;
}

static int won(const char *b, char m) {
    static const int lines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                    {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};
    for (int i = 0; i < 8; i++)
        if (b[lines[i][0]] == m && b[lines[i][1]] == m && b[lines[i][2]] == m)
            return 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s GAMES BOT_X BOT_O\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int games = atoi(argv[1]);
    long moves = 0;
    for (int g = 0; g < games; g++) {
        struct bot bots[2] = {start(argv[2]), start(argv[3])};
        char board[10] = ".........";
        const char marks[2] = {'X', 'O'};
        for (int turn = 0; turn < 9; turn++) {
            struct bot *b = &bots[turn % 2];
            char line[64];
            fprintf(b->to, "3 3 3 %c XO %s\n", marks[turn % 2], board);
            fflush(b->to);
            if (!fgets(line, sizeof line, b->from))
                break;
            int square = atoi(line);
            if (square < 1 || square > 9 || board[square - 1] != '.')
                break;
            board[square - 1] = marks[turn % 2];
            moves++;
            if (won(board, marks[turn % 2]))
                break;
        }
        for (int i = 0; i < 2; i++) {
            fclose(bots[i].to);
            fclose(bots[i].from);
            waitpid(bots[i].pid, NULL, 0);
        }
    }
    printf("%d games, %ld moves\n", games, moves);
    return 0;
}
