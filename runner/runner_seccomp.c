/* runner_seccomp.c: the seccomp filter each worker of a root runner starts
 * under. A process may lower the resource limits, the priority or the
 * scheduling class of any other process of its uid (prlimit, setpriority,
 * sched_setscheduler, ioprio_set check the uid only, no ptrace access, so
 * Landlock's domain does not cover them): a script could set an httpd
 * child's open-files limit to 8 (its accepts fail) or put it in SCHED_IDLE.
 * The filter lets a worker and its children change these for themselves
 * (pid 0, their own process group) and nobody else (EPERM). */
#include "runner_types.h" /* _GNU_SOURCE */
#include "runner_seccomp.h"

#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SC_ARCH AUDIT_ARCH_X86_64
#define SC_X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define SC_ARCH AUDIT_ARCH_AARCH64
#endif

#if defined(SC_ARCH) && defined(SYS_seccomp) && defined(SYS_prlimit64) && defined(SYS_ioprio_set) \
    && defined(SYS_sched_setattr)

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP    2

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#define ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#endif

/* What a system call may aim at, checked on its arguments. */
enum { CK_PRLIMIT, CK_PRIO, CK_SCHED, CK_IOPRIO, CK_N };
/* Where the jumps go, resolved once the program is laid out. */
enum { L_ALLOW = CK_N, L_DENY, L_COMPAT, L_NATIVE, L_N };

/* The filter being laid out, on the builder's stack until it is loaded. */
typedef struct sc_prog {
    struct sock_filter f[96];
    unsigned n;
    unsigned label[L_N];
    unsigned short want_t[96], want_f[96]; /* label + 1 of a jump, 0: none */
} sc_prog;

static void op(sc_prog *p, unsigned short code, unsigned k)
{
    p->f[p->n++] = (struct sock_filter)BPF_STMT(code, k);
}

/* A conditional jump on the accumulator; t and f are labels, or -1 for
 * the next instruction. */
static void jeq(sc_prog *p, unsigned k, int t, int f)
{
    p->want_t[p->n] = (unsigned short)(t + 1);
    p->want_f[p->n] = (unsigned short)(f + 1);
    p->f[p->n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0);
}

static void here(sc_prog *p, int label)
{
    p->label[label] = p->n;
}

/* The dispatch on the system call number for one architecture. */
static void dispatch(sc_prog *p, const long nr[CK_N][3], int x32)
{
    op(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef SC_X32_BIT
    if (x32)
        op(p, BPF_ALU | BPF_AND | BPF_K, ~SC_X32_BIT); /* x32's numbers are x86-64's */
#else
    (void)x32;
#endif
    for (int c = 0; c < CK_N; c++)
        for (int i = 0; i < 3 && nr[c][i] >= 0; i++)
            jeq(p, (unsigned)nr[c][i], c, -1);
    op(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
}

/* (which, who, ...): who 0 with which self or group, that is the caller
 * or its process group; else DENY */
static void self_or_group(sc_prog *p, unsigned self, unsigned group)
{
    op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
    jeq(p, 0, -1, L_DENY);
    op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
    jeq(p, self, L_ALLOW, -1);
    jeq(p, group, L_ALLOW, L_DENY);
}

static int build(sc_prog *p)
{
    static const long native[CK_N][3] = {
        [CK_PRLIMIT] = { SYS_prlimit64, -1, -1 },
        [CK_PRIO] = { SYS_setpriority, -1, -1 },
        [CK_SCHED] = { SYS_sched_setparam, SYS_sched_setscheduler, SYS_sched_setattr },
        [CK_IOPRIO] = { SYS_ioprio_set, -1, -1 },
    };
#if defined(__x86_64__)
    /* i386's numbers: a 64-bit process may make those calls too (int 0x80) */
    static const long compat[CK_N][3] = {
        [CK_PRLIMIT] = { 340, -1, -1 },
        [CK_PRIO] = { 97, -1, -1 },
        [CK_SCHED] = { 154, 156, 351 },
        [CK_IOPRIO] = { 289, -1, -1 },
    };
#endif

    op(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    jeq(p, SC_ARCH, L_NATIVE, -1);
#if defined(__x86_64__)
    jeq(p, AUDIT_ARCH_I386, L_COMPAT, L_ALLOW);
    here(p, L_COMPAT);
    dispatch(p, compat, 0);
#else
    op(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    here(p, L_COMPAT);
#endif
    here(p, L_NATIVE);
    dispatch(p, native, 1);

    /* prlimit(pid, resource, new, old): its own (pid 0), or only reading */
    here(p, CK_PRLIMIT);
    op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
    jeq(p, 0, L_ALLOW, -1);
    op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
    jeq(p, 0, -1, L_DENY);
    op(p, BPF_LD | BPF_W | BPF_ABS, ARG_HI(2));
    jeq(p, 0, L_ALLOW, L_DENY);
    /* setpriority(which, who, prio) */
    here(p, CK_PRIO);
    self_or_group(p, PRIO_PROCESS, PRIO_PGRP);
    /* sched_set*(pid, ...): itself */
    here(p, CK_SCHED);
    op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
    jeq(p, 0, L_ALLOW, L_DENY);
    /* ioprio_set(which, who, prio) */
    here(p, CK_IOPRIO);
    self_or_group(p, IOPRIO_WHO_PROCESS, IOPRIO_WHO_PGRP);

    here(p, L_ALLOW);
    op(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    here(p, L_DENY);
    op(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));

    for (unsigned i = 0; i < p->n; i++) {
        unsigned t = p->want_t[i] ? p->label[p->want_t[i] - 1] : i + 1;
        unsigned f = p->want_f[i] ? p->label[p->want_f[i] - 1] : i + 1;

        if (t <= i || f <= i || t - i - 1 > 255 || f - i - 1 > 255)
            return -1; /* only forward jumps of a byte */
        if (p->want_t[i] || p->want_f[i]) {
            p->f[i].jt = (unsigned char)(t - i - 1);
            p->f[i].jf = (unsigned char)(f - i - 1);
        }
    }
    return 0;
}

static int sc_usable; /* read at start (runner_seccomp_probe) */

static int install(void)
{
    sc_prog p = { .n = 0 };
    struct sock_fprog fp;

    if (build(&p) < 0) {
        errno = EINVAL;
        return -1;
    }
    fp.len = (unsigned short)p.n;
    fp.filter = p.f;
    /* root's CAP_SYS_ADMIN or the unit's no_new_privs allows it; no
     * no_new_privs of ours, so set-uid programs work */
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

int runner_seccomp_probe(void)
{
    int st = 0;
    pid_t pid = fork(); /* a child tries it, as a spawn would */

    if (pid == 0)
        _exit(install() < 0 ? errno & 0x7f : 0);
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    sc_usable = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    errno = WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
    return sc_usable ? 0 : -1;
}

int runner_seccomp_confine(void)
{
    return sc_usable ? install() : 0; /* the runner said at start if not */
}

#else

int runner_seccomp_probe(void)
{
    errno = ENOSYS;
    return -1;
}

int runner_seccomp_confine(void)
{
    return 0;
}

#endif
