/* cgiplus_fcgid.h: the drop-in for mod_fcgid configurations
 * (cgiplus_fcgid_conf.c; docs/cgi-compat.md, "mod_fcgid"). Where mod_fcgid
 * is not loaded, the fcgid-script handler and mod_fcgid's directives are
 * mod_cgiplus's: each means what it means there, mapped onto pools of
 * FastCGI workers; what has no counterpart is refused, saying why. */
#ifndef CGIPLUS_FCGID_H
#define CGIPLUS_FCGID_H

#include "cgiplus_conf.h"

#define CGIPLUS_FCGID_HANDLER "fcgid-script"

/* Nonzero if the real mod_fcgid is loaded: a module named mod_fcgid.c
 * other than cgiplus_fcgid_module (cgiplus_fcgid_name.c), which only
 * answers to that name for <IfModule mod_fcgid.c>. */
int cgiplus_fcgid_peer_loaded(void);
/* Nonzero if r is for mod_fcgid's handler and mod_cgiplus serves it (mod_fcgid
 * is not loaded). */
int cgiplus_fcgid_wanted(request_rec *r);
/* The FcgidWrapper for r's file (its suffix's, else the scope's default):
 * the program, and whether the file need not exist (virtual). NULL: the
 * file is the FastCGI program itself. */
const char *cgiplus_fcgid_wrapper(request_rec *r, const cgiplus_dir_conf *dc, int *virt);
/* What a request gets from FcgidPassHeader and FcgidFixPathinfo, in
 * r->subprocess_env, once the CGI variables are there. */
void cgiplus_fcgid_env(request_rec *r, const cgiplus_dir_conf *dc);
/* The BEGIN entries of an fcgid-script request whose pool runs program:
 * the wrapper's arguments, the Fcgid* settings in force (or
 * FcgidCmdOptions' for program); how many, at most max. */
int cgiplus_fcgid_begin(request_rec *r, const cgiplus_dir_conf *dc, const char *program,
                        const char **names, const char **vals, int max);

/* Directive handlers: the entries of CGIPLUS_FCGID_CMDS. Each stores into
 * its row of the settings table (include/cgp_settings.def, CGP_S_FCGID_*). */
const char *cgiplus_fcgid_set_wrapper(cmd_parms *cmd, void *dcv, const char *cmdline,
                                      const char *suffix, const char *flag);
const char *cgiplus_fcgid_set_number(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_fcgid_set_env(cmd_parms *cmd, void *dcv, const char *name,
                                  const char *val);
const char *cgiplus_fcgid_set_pass_header(cmd_parms *cmd, void *dcv, const char *name);
const char *cgiplus_fcgid_set_fix_pathinfo(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_fcgid_set_cmd_options(cmd_parms *cmd, void *dcv, const char *args);
const char *cgiplus_fcgid_set_unused(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_fcgid_set_refused(cmd_parms *cmd, void *dcv, const char *arg);
const char *cgiplus_fcgid_set_refused_flag(cmd_parms *cmd, void *dcv, int on);

#define CGIPLUS_FCGID_CTX (RSRC_CONF)
/* cmd->info: the row a number goes into */
#define CGIPLUS_FCGID_NUM(name, row, help) \
    AP_INIT_TAKE1(name, cgiplus_fcgid_set_number, (void *)(apr_uintptr_t)(CGP_S_##row), \
                  CGIPLUS_FCGID_CTX, help)
#define CGIPLUS_FCGID_UNUSED(name, help) \
    AP_INIT_TAKE1(name, cgiplus_fcgid_set_unused, NULL, RSRC_CONF, help)
#define CGIPLUS_FCGID_REFUSED(name) \
    AP_INIT_TAKE1(name, cgiplus_fcgid_set_refused, NULL, ACCESS_CONF | OR_FILEINFO, \
                  "mod_fcgid's; not supported by mod_cgiplus")
#define CGIPLUS_FCGID_REFUSED_FLAG(name) \
    AP_INIT_FLAG(name, cgiplus_fcgid_set_refused_flag, NULL, ACCESS_CONF | OR_FILEINFO, \
                 "mod_fcgid's; not supported by mod_cgiplus")
/* mod_fcgid's directives under both its names (the old ones are still
 * accepted by mod_fcgid, deprecated), in the module's one table of
 * directives (mod_cgiplus.c). */
#define CGIPLUS_FCGID_ROWS(P, W, E, N, I, C, A, D, K, T, L, R, O, S, M, X)       \
    AP_INIT_TAKE123(W, cgiplus_fcgid_set_wrapper, NULL,                            \
                    RSRC_CONF | ACCESS_CONF | OR_FILEINFO,                         \
                    "mod_fcgid's wrapper: command [suffix] [virtual]"),            \
    AP_INIT_TAKE12(E, cgiplus_fcgid_set_env, NULL, RSRC_CONF,                      \
                   "mod_fcgid's: a variable in the FastCGI workers' environment"), \
    CGIPLUS_FCGID_NUM(N, FCGID_MAX_REQUESTS, "mod_fcgid's: requests per process"), \
    CGIPLUS_FCGID_NUM(I, FCGID_IDLE, "mod_fcgid's: idle seconds before a process stops"), \
    CGIPLUS_FCGID_NUM(C, FCGID_IO, "mod_fcgid's: seconds without I/O (no progress)"), \
    CGIPLUS_FCGID_NUM(A, FCGID_MAX_CLASS, "mod_fcgid's: processes of one program"), \
    CGIPLUS_FCGID_NUM(D, FCGID_MIN_CLASS, "mod_fcgid's: processes kept per program"), \
    CGIPLUS_FCGID_NUM(K, FCGID_BUSY, "mod_fcgid's: seconds one request may take"), \
    CGIPLUS_FCGID_NUM(T, FCGID_LIFETIME, "mod_fcgid's: a process's longest life (s)"), \
    CGIPLUS_FCGID_NUM(L, FCGID_MAX_LEN, "mod_fcgid's: the longest request body"), \
    CGIPLUS_FCGID_NUM(R, FCGID_IN_MEM, "mod_fcgid's: body bytes held in memory"), \
    AP_INIT_TAKE1(O, cgiplus_fcgid_set_pass_header, NULL, RSRC_CONF,               \
                  "mod_fcgid's: a request header passed as a variable"),           \
    AP_INIT_TAKE1(S, cgiplus_fcgid_set_fix_pathinfo, NULL, RSRC_CONF,              \
                  "mod_fcgid's: 1 mirrors php's cgi.fix_pathinfo=1"),              \
    /* FcgidMaxProcesses: the runner's cap on all workers */                    \
    CGIPLUS_FCGID_NUM(M, MAX_WORKERS_TOTAL,                                        \
                      "mod_fcgid's: FastCGI processes in all (CGIplusMaxWorkersTotal)"), \
    CGIPLUS_FCGID_UNUSED(X, "mod_fcgid's: accepted, no meaning here"),             \
    CGIPLUS_FCGID_REFUSED(P)

#define CGIPLUS_FCGID_CMDS                                                          \
    CGIPLUS_FCGID_ROWS("FcgidAccessChecker", "FcgidWrapper", "FcgidInitialEnv",    \
                       "FcgidMaxRequestsPerProcess", "FcgidIdleTimeout",            \
                       "FcgidIOTimeout", "FcgidMaxProcessesPerClass",               \
                       "FcgidMinProcessesPerClass", "FcgidBusyTimeout",             \
                       "FcgidProcessLifeTime", "FcgidMaxRequestLen",                \
                       "FcgidMaxRequestInMem", "FcgidPassHeader", "FcgidFixPathinfo", \
                       "FcgidMaxProcesses", "FcgidConnectTimeout"),                 \
    CGIPLUS_FCGID_ROWS("FastCgiAccessChecker", "FCGIWrapper", "DefaultInitEnv",    \
                       "MaxRequestsPerProcess", "IdleTimeout", "IPCCommTimeout",    \
                       "DefaultMaxClassProcessCount", "DefaultMinClassProcessCount", \
                       "BusyTimeout", "ProcessLifeTime", "MaxRequestLen",           \
                       "MaxRequestInMem", "PassHeader", "PHP_Fix_Pathinfo_Enable",  \
                       "MaxProcessCount", "IPCConnectTimeout"),                     \
    AP_INIT_RAW_ARGS("FcgidCmdOptions", cgiplus_fcgid_set_cmd_options, NULL, RSRC_CONF, \
                     "mod_fcgid's per-command settings"),                           \
    CGIPLUS_FCGID_UNUSED("FcgidBusyScanInterval", "mod_fcgid's: no meaning here"),  \
    CGIPLUS_FCGID_UNUSED("FcgidErrorScanInterval", "mod_fcgid's: no meaning here"), \
    CGIPLUS_FCGID_UNUSED("FcgidIdleScanInterval", "mod_fcgid's: no meaning here"),  \
    CGIPLUS_FCGID_UNUSED("FcgidZombieScanInterval", "mod_fcgid's: no meaning here"), \
    CGIPLUS_FCGID_UNUSED("FcgidIPCDir", "mod_fcgid's: no meaning here"),            \
    CGIPLUS_FCGID_UNUSED("FcgidProcessTableFile", "mod_fcgid's: no meaning here"),  \
    CGIPLUS_FCGID_UNUSED("FcgidSpawnScore", "mod_fcgid's: no meaning here"),        \
    CGIPLUS_FCGID_UNUSED("FcgidSpawnScoreUpLimit", "mod_fcgid's: no meaning here"), \
    CGIPLUS_FCGID_UNUSED("FcgidTerminationScore", "mod_fcgid's: no meaning here"),  \
    CGIPLUS_FCGID_UNUSED("FcgidTimeScore", "mod_fcgid's: no meaning here"),         \
    CGIPLUS_FCGID_UNUSED("FcgidOutputBufferSize", "mod_fcgid's: no meaning here"),  \
    CGIPLUS_FCGID_UNUSED("BusyScanInterval", "mod_fcgid's: no meaning here"),       \
    CGIPLUS_FCGID_UNUSED("ErrorScanInterval", "mod_fcgid's: no meaning here"),      \
    CGIPLUS_FCGID_UNUSED("IdleScanInterval", "mod_fcgid's: no meaning here"),       \
    CGIPLUS_FCGID_UNUSED("ZombieScanInterval", "mod_fcgid's: no meaning here"),     \
    CGIPLUS_FCGID_UNUSED("SocketPath", "mod_fcgid's: no meaning here"),             \
    CGIPLUS_FCGID_UNUSED("SharememPath", "mod_fcgid's: no meaning here"),           \
    CGIPLUS_FCGID_UNUSED("SpawnScore", "mod_fcgid's: no meaning here"),             \
    CGIPLUS_FCGID_UNUSED("SpawnScoreUpLimit", "mod_fcgid's: no meaning here"),      \
    CGIPLUS_FCGID_UNUSED("TerminationScore", "mod_fcgid's: no meaning here"),       \
    CGIPLUS_FCGID_UNUSED("TimeScore", "mod_fcgid's: no meaning here"),              \
    CGIPLUS_FCGID_UNUSED("OutputBufferSize", "mod_fcgid's: no meaning here"),       \
    CGIPLUS_FCGID_REFUSED_FLAG("FcgidAccessCheckerAuthoritative"),                  \
    CGIPLUS_FCGID_REFUSED("FcgidAuthenticator"),                                     \
    CGIPLUS_FCGID_REFUSED_FLAG("FcgidAuthenticatorAuthoritative"),                  \
    CGIPLUS_FCGID_REFUSED("FcgidAuthorizer"),                                        \
    CGIPLUS_FCGID_REFUSED_FLAG("FcgidAuthorizerAuthoritative"),                     \
    CGIPLUS_FCGID_REFUSED_FLAG("FastCgiAccessCheckerAuthoritative"),                \
    CGIPLUS_FCGID_REFUSED("FastCgiAuthenticator"),                                   \
    CGIPLUS_FCGID_REFUSED_FLAG("FastCgiAuthenticatorAuthoritative"),                \
    CGIPLUS_FCGID_REFUSED("FastCgiAuthorizer"),                                      \
    CGIPLUS_FCGID_REFUSED_FLAG("FastCgiAuthorizerAuthoritative")

#endif
