/* The plainest same-CPU round trip of one mechanism, the baseline
 * benches/harness_bias.rs holds iolab's pingpong against: two processes
 * pinned to one CPU, one message of `size` bytes there and back, `count`
 * times, nothing checked, nothing recorded per trip. Prints the median of
 * the repetitions' mean round trips in ns, as iolab's rtt_ns is.
 *
 * rtt_loop MECH SIZE COUNT REPS CPU   (MECH: pipe eventfd unix-stream udp)
 *
 * Two variants add one thing iolab does, to measure what it costs:
 * -DBOOKKEEPING reads the TSC after each send, records the trip in a
 * histogram array as large as iolab's HdrHistogram, stamps each message
 * with its sequence number and checks it on both sides; -DTHREE_PROCESSES
 * forks both sides from an unpinned parent that waits, as iolab's runner does.
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
#ifdef BOOKKEEPING
#include <x86intrin.h>
/* 1 ns to 100 s at 3 significant digits: 28 buckets of 1,024 counts. */
static uint64_t hist[28 * 1024];
static inline void record(uint64_t ns) {
    int bucket = 53 - __builtin_clzll(ns | 2047);
    hist[((bucket > 0 ? bucket : 0) << 10) + ((ns >> (bucket > 0 ? bucket : 0)) & 1023)]++;
}
static inline void stamp(char *buf, size_t size, long seq) {
    uint64_t tag = seq + 1;
    memcpy(buf, &tag, size < 8 ? size : 8);
}
static inline void check(const char *buf, size_t size, long seq) {
    uint64_t tag = seq + 1;
    if (memcmp(buf, &tag, size < 8 ? size : 8)) {
        fprintf(stderr, "message %ld: wrong sequence tag\n", seq);
        exit(1);
    }
}
#endif

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

/* Datagrams go by send and recv, as iolab's do; the rest by write and read. */
static int dgram;
static ssize_t put(int fd, const void *buf, size_t size) {
    return dgram ? send(fd, buf, size, 0) : write(fd, buf, size);
}
static ssize_t get(int fd, void *buf, size_t size) {
    return dgram ? recv(fd, buf, size, MSG_TRUNC) : read(fd, buf, size);
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
    char *buf = calloc(1, size > 8 ? size : 8);
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
        dgram = 1;
    } else {
        fprintf(stderr, "rtt_loop: unknown mechanism %s\n", mech);
        return 2;
    }
#ifndef THREE_PROCESSES
    pin(cpu);
#endif
    long total = count * reps + count / 10;
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        pin(cpu);
        for (long i = 0; i < total; i++) {
            full(get(b_r, buf, size), size, "echo read");
            if (eventfd_mech) *(uint64_t *)buf = 1;
            full(put(b_w, buf, size), size, "echo write");
#ifdef BOOKKEEPING
            if (!eventfd_mech) check(buf, size, i);
#endif
        }
        _exit(0);
    }
#ifdef THREE_PROCESSES
    int report[2];
    if (pipe(report)) die("pipe");
    pid_t initiator = fork();
    if (initiator < 0) die("fork");
    if (initiator > 0) {
        char line[64] = {0};
        if (read(report[0], line, sizeof line - 1) <= 0) die("the initiator's report");
        waitpid(initiator, 0, 0);
        waitpid(child, 0, 0);
        fputs(line, stdout);
        return 0;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pin(cpu);
#endif
    double *means = calloc(reps, sizeof *means);
    long warm = count / 10;
    long seq = 0;
    for (long i = 0; i < warm; i++, seq++) {
        *(uint64_t *)buf = 1;
#ifdef BOOKKEEPING
        if (!eventfd_mech) stamp(buf, size, seq);
#endif
        full(put(a_w, buf, size), size, "write");
        full(get(a_r, buf, size), size, "read");
    }
    for (long r = 0; r < reps; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
#ifdef BOOKKEEPING
        uint64_t last = 0;
#endif
        for (long i = 0; i < count; i++, seq++) {
            if (eventfd_mech) *(uint64_t *)buf = 1;
#ifdef BOOKKEEPING
            else stamp(buf, size, seq);
#endif
            full(put(a_w, buf, size), size, "write");
#ifdef BOOKKEEPING
            uint64_t now = __rdtsc();
            /* Ticks to about ns at 3 GHz: only the bucket's cost matters here. */
            if (last) record((now - last) / 3);
            last = now;
#endif
            full(get(a_r, buf, size), size, "read");
#ifdef BOOKKEEPING
            if (!eventfd_mech) check(buf, size, seq);
#endif
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        means[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / count;
    }
    qsort(means, reps, sizeof *means, cmp);
#ifdef THREE_PROCESSES
    dprintf(report[1], "%.1f\n", means[reps / 2]);
    _exit(0);
#endif
    waitpid(child, 0, 0);
    printf("%.1f\n", means[reps / 2]);
    return 0;
}
