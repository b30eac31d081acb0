/* cgiplus_scriptlog.h: the script log of failed requests
 * (cgiplus_scriptlog.c), like mod_cgi's ScriptLog (opened per entry, as User)
 * but per directory. */
#ifndef CGIPLUS_SCRIPTLOG_H
#define CGIPLUS_SCRIPTLOG_H

#include "cgiplus_req.h"

/* CGIplusScriptLog, -Length, -Buffer (their rows' setters in
 * include/cgp_settings.def); mod_cgi's ScriptLog (cmd->info 0),
 * ScriptLogLength (1), ScriptLogBuffer (2). */
const char *cgiplus_set_scriptlog(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_set_scriptlog_len(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_set_scriptlog_buf(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_set_cgi_scriptlog(cmd_parms *cmd, void *dcv, const char *arg);
/* Starts capturing for q if its directory has a script log. */
void cgiplus_scriptlog_start(cgiplus_req *q);
void cgiplus_scriptlog_body(cgiplus_req *q, const char *data, apr_size_t len);
/* The script's stderr (buf[0..len), lines): to the error log of the
 * request's virtual host, and kept for its script log entry. */
void cgiplus_script_stderr(cgiplus_req *q, const char *buf, apr_size_t len);
/* Writes one entry: a refusal before anything ran (q may be NULL) or a
 * failed exchange; why is the reason as logged. */
void cgiplus_scriptlog_write(request_rec *r, cgiplus_req *q, int status,
                             const char *why);

#endif
