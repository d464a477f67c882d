/* The plainest same-CPU round trip of one mechanism, the baseline
 * benches/harness_bias.rs holds iolab's pingpong against: two processes
 * pinned to one CPU, one message of `size` bytes there and back, `count`
 * times, nothing checked, nothing recorded per trip. Prints the median of
 * the repetitions' mean round trips in ns, as iolab's rtt_ns is.
 *
 * rtt_loop MECH SIZE COUNT REPS CPU   (MECH: pipe eventfd unix-stream udp)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) { perror(what); exit(1); }

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set)) die("sched_setaffinity");
}

static void full(ssize_t n, size_t want, const char *what) {
    if (n != (ssize_t)want) die(what);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: rtt_loop MECH SIZE COUNT REPS CPU\n");
        return 2;
    }
    const char *mech = argv[1];
    size_t size = strtoul(argv[2], 0, 10);
    long count = strtol(argv[3], 0, 10), reps = strtol(argv[4], 0, 10);
    int cpu = atoi(argv[5]);
    int eventfd_mech = !strcmp(mech, "eventfd");
    if (eventfd_mech) size = 8;
    char *buf = calloc(1, size ? size : 1);
    /* a[0]/b[0]: the initiator's ends to write and read; a[1]/b[1] the echo's. */
    int a_w, a_r, b_w, b_r;
    if (!strcmp(mech, "pipe")) {
        int p[2], q[2];
        if (pipe(p) || pipe(q)) die("pipe");
        a_w = p[1]; b_r = p[0]; b_w = q[1]; a_r = q[0];
    } else if (eventfd_mech) {
        int e1 = eventfd(0, 0), e2 = eventfd(0, 0);
        if (e1 < 0 || e2 < 0) die("eventfd");
        a_w = e1; b_r = e1; b_w = e2; a_r = e2;
    } else if (!strcmp(mech, "unix-stream")) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) die("socketpair");
        a_w = a_r = sv[0]; b_w = b_r = sv[1];
    } else if (!strcmp(mech, "udp")) {
        int s1 = socket(AF_INET, SOCK_DGRAM, 0), s2 = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in x = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        struct sockaddr_in y = x;
        socklen_t len = sizeof x;
        if (bind(s1, (void *)&x, sizeof x) || bind(s2, (void *)&y, sizeof y)) die("bind");
        if (getsockname(s1, (void *)&x, &len) || getsockname(s2, (void *)&y, &len)) die("getsockname");
        if (connect(s1, (void *)&y, sizeof y) || connect(s2, (void *)&x, sizeof x)) die("connect");
        a_w = a_r = s1; b_w = b_r = s2;
    } else {
        fprintf(stderr, "rtt_loop: unknown mechanism %s\n", mech);
        return 2;
    }
    pin(cpu);
    long total = count * reps + count / 10;
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (long i = 0; i < total; i++) {
            full(read(b_r, buf, size), size, "echo read");
            if (eventfd_mech) *(uint64_t *)buf = 1;
            full(write(b_w, buf, size), size, "echo write");
        }
        _exit(0);
    }
    double *means = calloc(reps, sizeof *means);
    long warm = count / 10;
    for (long i = 0; i < warm; i++) {
        *(uint64_t *)buf = 1;
        full(write(a_w, buf, size), size, "write");
        full(read(a_r, buf, size), size, "read");
    }
    for (long r = 0; r < reps; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < count; i++) {
            if (eventfd_mech) *(uint64_t *)buf = 1;
            full(write(a_w, buf, size), size, "write");
            full(read(a_r, buf, size), size, "read");
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        means[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / count;
    }
    waitpid(child, 0, 0);
    qsort(means, reps, sizeof *means, cmp);
    printf("%.1f\n", means[reps / 2]);
    return 0;
}
