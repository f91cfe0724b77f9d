// NCCL across processes (ci/capi-gpu.sh, row nccl_mp): one process per GPU, the socket
// transport forced, the unique id handed from rank 0 to the others by fork + pipe. Built against
// NVIDIA's nccl.h and cuda_runtime.h, linked with -lnccl -lcudart; it uses NCCL's public API
// only, so it runs unchanged on NVIDIA's libnccl.so.2 and on anycuda's
// (LD_LIBRARY_PATH="$(anycuda libdir)").
//
//   nccl_mp [RANKS]     RANKS (or NCCL_MP_RANKS): default the visible GPUs, at most 4; >= 2
//
// Phase 1, "allreduce": blocking communicators; float sum all-reduce of several sizes (out of
//   place, and once in place), every element checked exactly (small integers: the sums are exact).
// Phase 2, "killed peer": fresh processes, communicators made non-blocking (ncclConfig_t
//   blocking = 0); after one all-reduce that every rank completes, the survivors enter the next
//   while the last rank does not, and the parent SIGKILLs the last rank. Every survivor must see
//   ncclCommGetAsyncError answer an error (not ncclSuccess, not ncclInProgress) within
//   NCCL_MP_TIMEOUT seconds (default 60), then ncclCommAbort and exit 0. A survivor past that
//   time is killed by the parent and the phase fails.
// Every process gets NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_NET=Socket
// NCCL_SOCKET_IFNAME=lo NCCL_NVLS_ENABLE=0 (set here, over the caller's values).
// Prints `PASS nccl_mp <phase>: ...` or `FAIL nccl_mp: <reason>` per phase on stdout (the ranks'
// own diagnostics go to stderr); exits 0 when both pass, 1 otherwise, 77 (with SKIP on stderr)
// when fewer than 2 GPUs are visible, 2 on bad arguments.
//
// The parent never calls CUDA or NCCL (CUDA does not survive fork): a child counts the GPUs.
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <errno.h>
#include <nccl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 4

enum { MSG_READY = 1, MSG_ASYNC_ERROR = 2 };
struct msg {
    int rank, kind, code;
    double seconds;
};

static int msg_fd = -1;  // the children's write end of the parent's message pipe
static double timeout_s = 60;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void send_msg(int rank, int kind, int code, double seconds) {
    struct msg m = {rank, kind, code, seconds};
    if (write(msg_fd, &m, sizeof m) != (ssize_t)sizeof m) perror("nccl_mp: write");
}

// NCCL's result names, so that the parent needs no library call to print one.
static const char *result_name(int r) {
    static const char *names[] = {"ncclSuccess",       "ncclUnhandledCudaError", "ncclSystemError",
                                  "ncclInternalError", "ncclInvalidArgument",    "ncclInvalidUsage",
                                  "ncclRemoteError",   "ncclInProgress"};
    return r >= 0 && r < (int)(sizeof names / sizeof names[0]) ? names[r] : "(unknown ncclResult_t)";
}

// ---- in a rank (child) --------------------------------------------------------------------------

#define RCUDA(rank, call)                                                                      \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "nccl_mp rank %d: %s: %s (%d)\n", rank, #call, cudaGetErrorName(e_), \
                    (int)e_);                                                                  \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#define RNCCL(rank, call)                                                                          \
    do {                                                                                           \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess) {                                                                   \
            fprintf(stderr, "nccl_mp rank %d: %s: %s (%d)\n", rank, #call, ncclGetErrorString(r_), \
                    (int)r_);                                                                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// Element i of rank r; the sum over n ranks is n*(i % 1021) + 1024*n*(n-1)/2, an exact float.
static float value(size_t i, int r) { return (float)(i % 1021) + 1024.0f * (float)r; }

static void fill(float *h, size_t count, int rank) {
    for (size_t i = 0; i < count; i++) h[i] = value(i, rank);
}

// Returns the number of wrong elements (and prints the first).
static size_t check_sum(int rank, const float *h, size_t count, int n) {
    size_t bad = 0;
    for (size_t i = 0; i < count; i++) {
        float want = (float)n * (float)(i % 1021) + 1024.0f * (float)(n * (n - 1) / 2);
        if (h[i] != want) {
            if (bad == 0)
                fprintf(stderr, "nccl_mp rank %d: element %zu of %zu is %.9g, want %.9g\n", rank, i,
                        count, h[i], want);
            bad++;
        }
    }
    return bad;
}

static int rank_allreduce(int rank, int n, ncclUniqueId id) {
    static const size_t counts[] = {1, 1023, (size_t)1 << 20, (size_t)1 << 24};
    const size_t ncounts = sizeof counts / sizeof counts[0];
    size_t max = counts[ncounts - 1];
    RCUDA(rank, cudaSetDevice(rank));
    ncclComm_t comm;
    RNCCL(rank, ncclCommInitRank(&comm, n, id, rank));
    cudaStream_t s;
    RCUDA(rank, cudaStreamCreate(&s));
    float *h = malloc(max * sizeof(float)), *send = NULL, *recv = NULL;
    if (!h) return 1;
    RCUDA(rank, cudaMalloc((void **)&send, max * sizeof(float)));
    RCUDA(rank, cudaMalloc((void **)&recv, max * sizeof(float)));
    int failed = 0;
    for (size_t k = 0; k <= ncounts; k++) {
        int in_place = k == ncounts;  // the last pass: the largest size again, in place
        size_t count = in_place ? max : counts[k];
        fill(h, count, rank);
        RCUDA(rank, cudaMemcpy(send, h, count * sizeof(float), cudaMemcpyHostToDevice));
        RCUDA(rank, cudaMemset(recv, 0xff, count * sizeof(float)));  // NaNs: an unwritten element fails
        float *out = in_place ? send : recv;
        RNCCL(rank, ncclAllReduce(send, out, count, ncclFloat32, ncclSum, comm, s));
        RCUDA(rank, cudaStreamSynchronize(s));
        RCUDA(rank, cudaMemcpy(h, out, count * sizeof(float), cudaMemcpyDeviceToHost));
        if (check_sum(rank, h, count, n) != 0) {
            fprintf(stderr, "nccl_mp rank %d: wrong sum at %zu floats%s\n", rank, count,
                    in_place ? " (in place)" : "");
            failed = 1;
        }
    }
    RNCCL(rank, ncclCommDestroy(comm));
    cudaFree(send);
    cudaFree(recv);
    cudaStreamDestroy(s);
    free(h);
    return failed;
}

// Non-blocking communicator: waits while ncclCommGetAsyncError answers ncclInProgress; returns its
// last answer, or ncclInProgress past the deadline.
static ncclResult_t settle(ncclComm_t comm, double deadline) {
    ncclResult_t st = ncclInProgress;
    while (now_s() < deadline) {
        ncclResult_t r = ncclCommGetAsyncError(comm, &st);
        if (r != ncclSuccess) return r;
        if (st != ncclInProgress) return st;
        usleep(1000);
    }
    return ncclInProgress;
}

// One all-reduce on a non-blocking communicator, up to the stream's completion. Returns
// ncclSuccess when done, the error NCCL reported (at the call, or by ncclCommGetAsyncError while
// waiting), ncclUnhandledCudaError for a CUDA error, or ncclInProgress past the deadline.
static ncclResult_t allreduce_nb(int rank, ncclComm_t comm, const float *send, float *recv,
                                 size_t count, cudaStream_t s, double deadline) {
    ncclResult_t r = ncclAllReduce(send, recv, count, ncclFloat32, ncclSum, comm, s);
    if (r == ncclInProgress) r = settle(comm, deadline);
    if (r != ncclSuccess) return r;
    for (;;) {
        cudaError_t q = cudaStreamQuery(s);
        if (q == cudaSuccess) return ncclSuccess;
        if (q != cudaErrorNotReady) {
            fprintf(stderr, "nccl_mp rank %d: cudaStreamQuery: %s\n", rank, cudaGetErrorName(q));
            return ncclUnhandledCudaError;
        }
        ncclResult_t st = ncclSuccess;
        r = ncclCommGetAsyncError(comm, &st);
        if (r != ncclSuccess) return r;
        if (st != ncclSuccess && st != ncclInProgress) return st;
        if (now_s() > deadline) return ncclInProgress;
        usleep(1000);
    }
}

static int rank_killed_peer(int rank, int n, ncclUniqueId id) {
    const size_t count = (size_t)1 << 20;
    RCUDA(rank, cudaSetDevice(rank));
    cudaStream_t s;
    RCUDA(rank, cudaStreamCreate(&s));
    float *h = malloc(count * sizeof(float)), *send = NULL, *recv = NULL;
    if (!h) return 1;
    RCUDA(rank, cudaMalloc((void **)&send, count * sizeof(float)));
    RCUDA(rank, cudaMalloc((void **)&recv, count * sizeof(float)));
    fill(h, count, rank);
    RCUDA(rank, cudaMemcpy(send, h, count * sizeof(float), cudaMemcpyHostToDevice));

    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t comm = NULL;
    double deadline = now_s() + 2 * timeout_s;
    ncclResult_t r = ncclCommInitRankConfig(&comm, n, id, rank, &config);
    if (r == ncclInProgress) r = settle(comm, deadline);
    if (r != ncclSuccess) {
        fprintf(stderr, "nccl_mp rank %d: non-blocking ncclCommInitRankConfig: %s (%d)\n", rank,
                r == ncclInProgress ? "still in progress at the deadline" : ncclGetErrorString(r),
                (int)r);
        return 1;
    }
    // One all-reduce that every rank completes: every connection is up before the kill.
    r = allreduce_nb(rank, comm, send, recv, count, s, deadline);
    if (r != ncclSuccess) {
        fprintf(stderr, "nccl_mp rank %d: first all-reduce: %s (%d)\n", rank,
                r == ncclInProgress ? "not done at the deadline" : ncclGetErrorString(r), (int)r);
        return 1;
    }
    RCUDA(rank, cudaMemcpy(h, recv, count * sizeof(float), cudaMemcpyDeviceToHost));
    if (check_sum(rank, h, count, n) != 0) return 1;
    send_msg(rank, MSG_READY, 0, 0);
    if (rank == n - 1) {  // the peer to be killed: it never enters the next all-reduce
        for (;;) pause();
    }
    // A survivor: all-reduces until one fails; the first cannot finish (the last rank is absent)
    // and is in flight when the parent kills the last rank.
    double t0 = now_s();
    deadline = t0 + 2 * timeout_s + 10;  // the parent judges the time; this only bounds the loop
    for (;;) {
        r = allreduce_nb(rank, comm, send, recv, count, s, deadline);
        if (r == ncclSuccess) continue;
        if (r == ncclInProgress) {
            fprintf(stderr, "nccl_mp rank %d: no error after %.1f s\n", rank, now_s() - t0);
            return 4;
        }
        break;
    }
    fprintf(stderr, "nccl_mp rank %d: saw %s (%d): %s\n", rank, result_name((int)r), (int)r,
            ncclGetErrorString(r));
    send_msg(rank, MSG_ASYNC_ERROR, (int)r, now_s() - t0);
    ncclResult_t a = ncclCommAbort(comm);  // ncclInProgress: a non-blocking teardown under way
    if (a != ncclSuccess && a != ncclInProgress) {
        fprintf(stderr, "nccl_mp rank %d: ncclCommAbort: %s (%d)\n", rank, ncclGetErrorString(a), (int)a);
        return 5;
    }
    free(h);
    return 0;
}

// ---- in the parent ------------------------------------------------------------------------------

// Counts the GPUs in a child (CUDA must not be initialised in a process that forks after).
static int count_gpus(char *why, size_t whylen) {
    struct {
        int err, count;
        char name[96];
    } res = {-1, 0, "no answer"};
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        cudaError_t e = cudaGetDeviceCount(&res.count);
        res.err = (int)e;
        snprintf(res.name, sizeof res.name, "%s", cudaGetErrorName(e));
        if (write(p[1], &res, sizeof res) != (ssize_t)sizeof res) _exit(1);
        _exit(0);
    }
    close(p[1]);
    struct pollfd pf = {p[0], POLLIN, 0};
    if (pid > 0 && poll(&pf, 1, 120000) == 1 && read(p[0], &res, sizeof res) == (ssize_t)sizeof res) {
    } else if (pid > 0) {
        kill(pid, SIGKILL);
    }
    close(p[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    snprintf(why, whylen, "cudaGetDeviceCount: %s (%d), %d GPU(s)", res.name, res.err, res.count);
    return res.err == 0 ? res.count : 0;
}

struct phase {
    const char *name;
    int (*body)(int rank, int n, ncclUniqueId id);
    pid_t pid[MAX_RANKS];
    int status[MAX_RANKS];  // -1 while running
    int msg_rd;
};

static void in_child(int keep_fd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a parent killed by a timeout takes its ranks along
    msg_fd = keep_fd;
}

// Forks the ranks: rank 0 first, which makes the unique id and writes it to a pipe; the parent
// reads it and forks the others with it. The message pipe's write end stays open in the parent
// until every rank is forked, so each inherits it. Returns 0, or 1 with `why` filled.
static int spawn(struct phase *ph, int n, char *why, size_t whylen) {
    int mp[2], idp[2];
    for (int r = 0; r < n; r++) ph->pid[r] = -1, ph->status[r] = -1;
    if (pipe(mp) != 0 || pipe(idp) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return 1;
    }
    ph->msg_rd = mp[0];
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    for (int r = 0; r < n; r++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            in_child(mp[1]);
            close(mp[0]);
            if (r == 0) {
                close(idp[0]);
                ncclResult_t e = ncclGetUniqueId(&id);
                if (e != ncclSuccess) {
                    fprintf(stderr, "nccl_mp rank 0: ncclGetUniqueId: %s (%d)\n", ncclGetErrorString(e), (int)e);
                    _exit(1);
                }
                if (write(idp[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(1);
                close(idp[1]);
            }
            exit(ph->body(r, n, id));
        }
        ph->pid[r] = pid;
        if (pid < 0) {
            snprintf(why, whylen, "fork: %s", strerror(errno));
            break;
        }
        if (r == 0) {
            close(idp[1]);
            struct pollfd pf = {idp[0], POLLIN, 0};
            int ok = poll(&pf, 1, (int)(timeout_s * 1000)) == 1 &&
                     read(idp[0], &id, sizeof id) == (ssize_t)sizeof id;
            close(idp[0]);
            if (!ok) {
                snprintf(why, whylen, "no unique id from rank 0 within %.0f s", timeout_s);
                close(mp[1]);
                return 1;
            }
        }
    }
    close(mp[1]);
    return ph->pid[n - 1] > 0 ? 0 : 1;
}

static int running(const struct phase *ph, int n) {
    int k = 0;
    for (int r = 0; r < n; r++) k += ph->pid[r] > 0 && ph->status[r] < 0;
    return k;
}

// Reaps what has exited and reads one pending message (waiting up to ms). Returns 1 when a
// message was read into *m.
static int pump(struct phase *ph, int n, int ms, struct msg *m) {
    int got = 0;
    struct pollfd pf = {ph->msg_rd, POLLIN, 0};
    if (poll(&pf, 1, ms) == 1 && (pf.revents & POLLIN)) got = read(ph->msg_rd, m, sizeof *m) == (ssize_t)sizeof *m;
    else if (pf.revents & (POLLHUP | POLLERR)) usleep((useconds_t)ms * 1000);  // every writer gone
    for (int r = 0; r < n; r++) {
        int st;
        if (ph->pid[r] > 0 && ph->status[r] < 0 && waitpid(ph->pid[r], &st, WNOHANG) == ph->pid[r])
            ph->status[r] = st;
    }
    return got;
}

static void kill_all(struct phase *ph, int n) {
    for (int r = 0; r < n; r++)
        if (ph->pid[r] > 0 && ph->status[r] < 0) kill(ph->pid[r], SIGKILL);
    for (int r = 0; r < n; r++)
        if (ph->pid[r] > 0 && ph->status[r] < 0) {
            int st;
            if (waitpid(ph->pid[r], &st, 0) == ph->pid[r]) ph->status[r] = st;
        }
}

static void describe(char *buf, size_t len, int st) {
    if (WIFEXITED(st)) snprintf(buf, len, "exit %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) snprintf(buf, len, "signal %d", WTERMSIG(st));
    else snprintf(buf, len, "status %d", st);
}

static int phase_allreduce(int n) {
    struct phase ph = {.name = "allreduce", .body = rank_allreduce};
    char why[256] = "";
    if (spawn(&ph, n, why, sizeof why) != 0) {
        kill_all(&ph, n);
        printf("FAIL nccl_mp: allreduce: %s\n", why);
        return 1;
    }
    double deadline = now_s() + 2 * timeout_s;
    struct msg m;
    while (running(&ph, n) > 0 && now_s() < deadline) pump(&ph, n, 50, &m);
    int hung = running(&ph, n);
    kill_all(&ph, n);
    close(ph.msg_rd);
    size_t off = 0;
    for (int r = 0; r < n; r++) {
        int st = ph.status[r];
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) continue;
        char d[64];
        describe(d, sizeof d, st);
        off += (size_t)snprintf(why + off, off < sizeof why ? sizeof why - off : 0, "%srank %d %s",
                                off ? ", " : "", r, d);
    }
    if (hung) {
        printf("FAIL nccl_mp: allreduce: %d rank(s) still running after %.0f s, killed (%s)\n", hung,
               2 * timeout_s, why);
        return 1;
    }
    if (off) {
        printf("FAIL nccl_mp: allreduce: %s (the ranks' lines on stderr)\n", why);
        return 1;
    }
    printf("PASS nccl_mp allreduce: %d processes, one GPU each, socket transport; float sum of 1, "
           "1023, 2^20 and 2^24 elements and 2^24 in place, every element exact\n", n);
    return 0;
}

static int phase_killed_peer(int n) {
    struct phase ph = {.name = "killed peer", .body = rank_killed_peer};
    char why[256] = "";
    if (spawn(&ph, n, why, sizeof why) != 0) {
        kill_all(&ph, n);
        printf("FAIL nccl_mp: killed peer: %s\n", why);
        return 1;
    }
    const int victim = n - 1;
    int ready = 0, seen = 0, codes[MAX_RANKS];
    double secs[MAX_RANKS];
    for (int r = 0; r < n; r++) codes[r] = -1, secs[r] = 0;
    struct msg m;
    double deadline = now_s() + 3 * timeout_s;  // non-blocking init and the first all-reduce
    while (ready < n && now_s() < deadline && running(&ph, n) == n)
        if (pump(&ph, n, 50, &m) && m.kind == MSG_READY) ready++;
    if (ready < n) {
        int all = running(&ph, n) == n;
        kill_all(&ph, n);
        close(ph.msg_rd);
        printf("FAIL nccl_mp: killed peer: %d of %d ranks made the communicator and finished the "
               "first all-reduce%s (the ranks' lines on stderr)\n", ready, n,
               all ? " within the time" : " before one exited");
        return 1;
    }
    // The survivors are now in the next all-reduce, waiting for the last rank.
    for (double t = now_s() + 1.0; now_s() < t;)
        if (pump(&ph, n, 50, &m) && m.kind == MSG_ASYNC_ERROR) codes[m.rank] = m.code, seen++;
    if (seen || running(&ph, n) != n) {
        kill_all(&ph, n);
        close(ph.msg_rd);
        printf("FAIL nccl_mp: killed peer: a rank failed or exited before the kill\n");
        return 1;
    }
    double t_kill = now_s();
    kill(ph.pid[victim], SIGKILL);
    deadline = t_kill + timeout_s;
    while (running(&ph, n) > 0 && now_s() < deadline) {
        if (pump(&ph, n, 50, &m) && m.kind == MSG_ASYNC_ERROR && m.rank >= 0 && m.rank < n) {
            codes[m.rank] = m.code;
            secs[m.rank] = now_s() - t_kill;
        }
    }
    while (pump(&ph, n, 0, &m))  // messages written just before an exit
        if (m.kind == MSG_ASYNC_ERROR && m.rank >= 0 && m.rank < n) codes[m.rank] = m.code, secs[m.rank] = now_s() - t_kill;
    int hung = running(&ph, n);
    kill_all(&ph, n);
    close(ph.msg_rd);
    int bad = 0;
    size_t off = 0;
    char ok[256] = "";
    size_t okoff = 0;
    double worst = 0;
    for (int r = 0; r < n; r++) {
        if (r == victim) continue;
        int st = ph.status[r];
        int exited0 = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (exited0 && codes[r] > 0 && codes[r] != ncclInProgress) {
            okoff += (size_t)snprintf(ok + okoff, okoff < sizeof ok ? sizeof ok - okoff : 0,
                                      "%srank %d %s", okoff ? ", " : "", r, result_name(codes[r]));
            if (secs[r] > worst) worst = secs[r];
            continue;
        }
        bad = 1;
        char d[64];
        describe(d, sizeof d, st);
        off += (size_t)snprintf(why + off, off < sizeof why ? sizeof why - off : 0, "%srank %d: %s%s",
                                off ? "; " : "", r,
                                codes[r] < 0 ? "no error seen, " : "", d);
    }
    if (hung) {
        printf("FAIL nccl_mp: killed peer: %d survivor(s) still running %.0f s after rank %d was "
               "killed, killed in turn (%s)\n", hung, timeout_s, victim, why);
        return 1;
    }
    if (bad) {
        printf("FAIL nccl_mp: killed peer: %s (the ranks' lines on stderr)\n", why);
        return 1;
    }
    printf("PASS nccl_mp killed peer: non-blocking communicators, rank %d SIGKILLed in an all-reduce; "
           "ncclCommGetAsyncError answered an error to every survivor (%s) within %.2f s; "
           "ncclCommAbort, exit 0\n", victim, ok, worst);
    return 0;
}

int main(int argc, char **argv) {
    static const char *env[][2] = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"},
                                   {"NCCL_IB_DISABLE", "1"},  {"NCCL_NET", "Socket"},
                                   {"NCCL_SOCKET_IFNAME", "lo"}, {"NCCL_NVLS_ENABLE", "0"}};
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) setenv(env[i][0], env[i][1], 1);
    const char *t = getenv("NCCL_MP_TIMEOUT");
    if (t && atof(t) > 0) timeout_s = atof(t);
    const char *want = argc > 1 ? argv[1] : getenv("NCCL_MP_RANKS");
    int n = 0;
    if (want && *want) {
        char *end;
        long v = strtol(want, &end, 10);
        if (*end || v < 2 || v > MAX_RANKS) {
            fprintf(stderr, "usage: nccl_mp [RANKS]   (RANKS from 2 to %d; or NCCL_MP_RANKS)\n", MAX_RANKS);
            return 2;
        }
        n = (int)v;
    }
    signal(SIGPIPE, SIG_IGN);
    char why[160];
    int gpus = count_gpus(why, sizeof why);
    if (gpus < 2 || (n && gpus < n)) {
        fprintf(stderr, "SKIP nccl_mp: needs %d GPUs, %s\n", n ? n : 2, why);
        return 77;
    }
    if (!n) n = gpus < MAX_RANKS ? gpus : MAX_RANKS;
    fprintf(stderr, "nccl_mp: %d ranks (%s); NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo, P2P/SHM/IB off\n", n, why);
    int failed = phase_allreduce(n);
    fflush(stdout);
    failed |= phase_killed_peer(n);
    return failed ? 1 : 0;
}
