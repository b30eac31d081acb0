/* fcgi_threaded.c: a threaded libfcgi responder written as libfcgi's
 * examples/threaded.c: its threads take turns at FCGX_Accept_r() under one
 * mutex, each answering the request it accepted (t/59_fcgi_connection.t).
 * QUERY_STRING "id=N": the answer and a line of FCGI_LEDGER (if set) name
 * it, so the test counts how many times each request ran; "sleep=MS"
 * first. */
#define _POSIX_C_SOURCE 200809L
#include <fcgiapp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define THREADS 4

static pthread_mutex_t accept_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ledger_mutex = PTHREAD_MUTEX_INITIALIZER;
static const char *ledger;

static long arg(const char *q, const char *name)
{
    const char *p = strstr(q, name);
    size_t n = strlen(name);

    return p && p[n] == '=' ? atol(p + n + 1) : -1;
}

static void *serve(void *a)
{
    long id = (long)(intptr_t)a;
    FCGX_Request req;

    FCGX_InitRequest(&req, 0, 0);
    for (;;) {
        const char *q;
        long v, rid;
        int rc;

        pthread_mutex_lock(&accept_mutex);
        rc = FCGX_Accept_r(&req);
        pthread_mutex_unlock(&accept_mutex);
        if (rc < 0)
            break;
        q = FCGX_GetParam("QUERY_STRING", req.envp);
        q = q ? q : "";
        if ((v = arg(q, "sleep")) > 0) {
            struct timespec ts = { v / 1000, (v % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
        rid = arg(q, "id");
        if (ledger && rid >= 0) {
            FILE *f;

            pthread_mutex_lock(&ledger_mutex);
            if ((f = fopen(ledger, "a"))) {
                fprintf(f, "threaded %ld %ld\n", (long)getpid(), rid);
                fclose(f);
            }
            pthread_mutex_unlock(&ledger_mutex);
        }
        FCGX_FPrintF(req.out, "Content-Type: text/plain\r\n\r\npid=%ld\nthread=%ld\nid=%ld\n",
                     (long)getpid(), id, rid);
        FCGX_Finish_r(&req);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];

    ledger = getenv("FCGI_LEDGER");
    FCGX_Init();
    for (long i = 1; i < THREADS; i++)
        pthread_create(&t[i], NULL, serve, (void *)(intptr_t)i);
    serve((void *)(intptr_t)0);
    return 0;
}
