/* runner.h: every runner header, for the core files (loop, main, client,
 * request, pool, worker, table, status collector), which work on the core
 * objects together. One thread, one epoll loop, a self-pipe for signals,
 * explicit state per client connection, per request and per worker
 * (docs/PROTOCOL.md). Leaf files (buffers, logging, settings, records,
 * the header scanner, the key, the service manager, the status renderers)
 * include only the headers they need and never see a core object. */
#ifndef RUNNER_H
#define RUNNER_H

#include "runner_types.h"
#include "runner_log.h"
#include "runner_buf.h"
#include "runner_spool.h"
#include "runner_parse.h"
#include "runner_conf.h"
#include "runner_loop.h"
#include "runner_end.h"
#include "runner_watch.h"
#include "runner_pool.h"
#include "runner_hdr.h"
#include "runner_req.h"
#include "runner_record.h"
#include "runner_worker.h"
#include "runner_spawn.h"
#include "runner_table.h"
#include "runner_client.h"
#include "runner_key.h"
#include "runner_notify.h"
#include "cgp_table.h"

#endif
