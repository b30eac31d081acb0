/* cgiplus_direct_private.h: what the direct path's files share
 * (cgiplus_direct*.c; docs/DESIGN.md, "The direct path"). Private to them. */
#ifndef CGIPLUS_DIRECT_PRIVATE_H
#define CGIPLUS_DIRECT_PRIVATE_H

#include "cgiplus_private.h"

#include <time.h>

#include "apr_hash.h"
#include "apr_thread_mutex.h"

#include "cgp_parse.h"
#include "cgp_scan.h"
#include "cgp_table.h"

#define DIRECT_TAIL_CAP    (CGP_SCAN_LINE_MAX + 2 * CGP_MARK_LEN + 16)
#define DIRECT_LOG_MAX     100          /* LOG callouts logged per request */

/* One worker's descriptors, cached per process. Owned by cgiplus_dp.chans while
 * current; a request holding it keeps it alive (refs) after it is replaced. */
typedef struct direct_chan {
    uint32_t slot, gen, pid;
    int fd_in, fd_body, fd_out, fd_peer, fd_err;
    char eof[CGP_MARK_LEN + 1], esc[CGP_MARK_LEN + 1], eot[CGP_MARK_LEN + 1];
    int refs;
    int dead;                 /* no longer in cgiplus_dp.chans: closed at the last unref */
} direct_chan;

/* A pool key's entry in the table, as the runner named it (POOL). */
typedef struct direct_poolref {
    uint32_t idx, gen;
} direct_poolref;

/* This httpd child's view of the direct path; set up in child_init, lives
 * until the child exits. mu guards the maps only, never I/O that waits. */
typedef struct cgiplus_direct_proc {
    apr_thread_mutex_t *mu;   /* NULL: no direct path in this process */
    apr_pool_t *pool;         /* unmanaged: pool keys */
    uint32_t pid;
    void *base;               /* the current runner's table, NULL: none */
    uint32_t runner_pid;
    cgiplus_conn *anchor;     /* held for the child's life: its close tells the runner */
    apr_time_t next_check;
    int opening;
    uint32_t refused_pid;     /* a runner that has no table for us */
    apr_hash_t *pools;        /* pool key -> direct_poolref */
    unsigned npools;
    direct_chan *chans[CGP_TABLE_SLOTS];
} cgiplus_direct_proc;

extern cgiplus_direct_proc cgiplus_dp; /* cgiplus_direct_table.c */

/* One request's exchange with its worker. From r->pool; lives for the
 * handler call. The worker is the child's from claim to release. */
typedef struct cgiplus_direct {
    direct_chan *ch;
    cgp_tslot *slot;
    cgp_tpool *tp;
    uint32_t sidx, sgen, pidx, pgen;
    cgp_scan scan;
    unsigned char tail[DIRECT_TAIL_CAP]; /* bytes the scanner holds back */
    apr_size_t tail_len;
    char *in;                 /* CGIPLUSIN bytes not yet written */
    apr_size_t in_off, in_len, in_cap;
    const char *body;
    apr_size_t body_off, body_len;
    apr_uint64_t t_start, t_progress; /* monotonic ms */
    apr_int64_t over_out, over_np;    /* 0 the pool's, -1 none, >0 ms */
    int no_abort;
    int eof;                  /* stdout closed before the sentinel */
    int out_ready;            /* stdout is known readable: the next read needs no poll */
    int broken;               /* the worker cannot be reused as it is */
    int released;
    unsigned logs;
    apr_size_t err_len;       /* stderr bytes of an unfinished line in q->errbuf */
    int err_eof;              /* the script closed its stderr */
    int lifetime_set;         /* LIFETIME or X-lifetime: the runner's timer must know */
} cgiplus_direct;

static inline apr_uint64_t cgiplus_direct_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts); /* the runner's clock; vDSO, no syscall */
    return (apr_uint64_t)ts.tv_sec * 1000u + (apr_uint64_t)ts.tv_nsec / 1000000u;
}

/* cgiplus_direct_chan.c: the descriptors of workers, cached per process */
void cgiplus_direct_chan_close(direct_chan *ch);
/* With cgiplus_dp.mu held. */
void cgiplus_direct_chan_unref_locked(direct_chan *ch);
apr_status_t cgiplus_direct_recv(cgiplus_conn *c, unsigned want, unsigned char *pl,
                                 apr_size_t len, int *fds, int maxfds, int *nfds);
apr_status_t cgiplus_direct_send(cgiplus_conn *c, unsigned type, const unsigned char *pl,
                                 apr_size_t len);
/* The descriptors of the worker in slot sidx, generation sgen: cached, or
 * asked of the runner once. NULL if it is gone. */
direct_chan *cgiplus_direct_chan_get(request_rec *r, uint32_t sidx, uint32_t sgen);

/* cgiplus_direct_table.c: the table, the pool keys, claim and release */
/* The table entry of q's pool key, as the runner named it: 0 if unknown. */
int cgiplus_direct_pool_ref(cgiplus_req *q, direct_poolref *ref);
/* Claims an idle worker of the pool: IDLE -> CHILD(our pid) by CAS. */
int cgiplus_direct_claim(cgiplus_req *q, const direct_poolref *ref, cgiplus_direct *x);
/* The slot GRANT names, if this child holds it in the current table (the
 * runner did the CAS for it): x is filled as by a claim. */
int cgiplus_direct_granted_slot(request_rec *r, const cgp_grant *g, cgiplus_direct *x);
/* Gives back a worker claimed but not used (its channel could not be had). */
void cgiplus_direct_unclaim(request_rec *r, cgiplus_direct *x);
/* The worker goes back: IDLE for anyone, or RETURNED with what the runner
 * must do. */
void cgiplus_direct_release(cgiplus_req *q, int client_gone);

/* cgiplus_direct_record.c: the request record for CGIPLUSIN */
apr_status_t cgiplus_direct_record(cgiplus_req *q, int struct_mode, apr_size_t cl);

/* cgiplus_direct_callout.c: callouts answered in the child */
void cgiplus_direct_callout(cgiplus_req *q, const unsigned char *line, apr_size_t len,
                            int too_long);

/* cgiplus_direct.c: the request's I/O */
void cgiplus_direct_end(cgiplus_req *q, int outcome);

#endif
