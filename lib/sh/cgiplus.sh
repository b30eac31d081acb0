# cgiplus.sh: the POSIX sh script library of mod_cgiplus. Source it:
#
#   #!/bin/sh
#   . /path/to/lib/sh/cgiplus.sh
#   while cgiplus_accept; do
#       printf 'Content-Type: text/plain\n\nHello\n'
#       cgiplus_body >/dev/null          # the request body, if wanted
#       cgiplus_finish
#   done
#
# The same script runs as a persistent CGIplus worker under cgiplus-runner
# (CGIPLUSEOF is set) and as plain CGI (cgiplus_accept succeeds once).
# Protocol: docs/PROTOCOL.md, part 2 (record mode; struct mode carries binary
# lengths a shell cannot read, so it is not offered here).
#
# cgiplus_accept   waits for the next request; exports its variables and
#                  unsets the previous request's (restoring the worker's own
#                  values of names a request had overridden). Returns 0 when
#                  a request is ready, 1 when there are no more (plain CGI:
#                  after the first; persistent: CGIPLUSIN closed), 2 on a
#                  malformed request (logged with a CGIPLUS3xxx id).
#                  Variables whose names are not shell names, or that would
#                  change the shell itself (IFS, PS1..PS4, ENV, CDPATH,
#                  OPTIND, OPTARG, CGIPLUS*, _cgiplus_*), are skipped.
# cgiplus_body     copies the request body (exactly CONTENT_LENGTH bytes) to
#                  stdout. Never read stdin with cat or to its end: in a
#                  persistent worker it carries every request's body, and
#                  reading past CONTENT_LENGTH blocks.
# cgiplus_finish   writes the CGIPLUSEOF sentinel line (plain CGI: nothing).
# cgiplus_callout LINE
#                  sends one callout; the answer line is left in
#                  $cgiplus_answer (empty for a LINE starting with ! or #).
#                  Returns 0 for a 2xx answer, 1 for another, 2 on error.
# cgiplus_is_persistent   returns 0 under the runner.
#
# Internal names start with _cgiplus_. Never print the value of CGIPLUSEOF
# or CGIPLUSESC in a response: the runner would take it for the end of the
# response or a callout.

_cgiplus_init=0
_cgiplus_persistent=0
_cgiplus_in_request=0
_cgiplus_had=0
_cgiplus_names=
_cgiplus_saved=
_cgiplus_cr=$(printf '\r')

_cgiplus_log() {
    printf 'CGIPLUS%s: cgiplus.sh: %s\n' "$1" "$2" >&2
}

cgiplus_is_persistent() {
    if [ "$_cgiplus_init" = 1 ]; then
        [ "$_cgiplus_persistent" = 1 ]
    else
        [ -n "${CGIPLUSEOF-}" ]
    fi
}

# Unsets the previous request's variables; restores overridden base values.
_cgiplus_forget() {
    for _cgiplus_n in $_cgiplus_names; do
        case " $_cgiplus_saved " in
        *" $_cgiplus_n "*)
            eval "$_cgiplus_n=\$_cgiplus_b_$_cgiplus_n"
            export "${_cgiplus_n?}" ;;
        *)
            unset "$_cgiplus_n" 2>/dev/null ;;
        esac
    done
    _cgiplus_names=
}

# Exports one NAME=value record; 1 if the record is malformed.
# mod_ssl's PEM certificates (SSLOptions +ExportCertData) come with their
# line ends as spaces (record mode); base64 has no space, so they are put
# back exactly, as mod_cgi passes them. In _cgiplus_v; no fork.
_cgiplus_pem() {
    _cgiplus_v=$1
    _cgiplus_m=${1#'-----BEGIN CERTIFICATE----- '}
    [ "$_cgiplus_m" != "$1" ] || return 0
    _cgiplus_t=
    case $_cgiplus_m in *' ') _cgiplus_t='
'; _cgiplus_m=${_cgiplus_m% } ;;
    esac
    case $_cgiplus_m in
    *' -----END CERTIFICATE-----') _cgiplus_m=${_cgiplus_m%' -----END CERTIFICATE-----'} ;;
    *) return 0 ;;
    esac
    case $_cgiplus_m in '' | *[!A-Za-z0-9+/=\ ]*) return 0 ;; esac
    _cgiplus_v='-----BEGIN CERTIFICATE-----
'
    while :; do
        case $_cgiplus_m in
        *' '*) _cgiplus_v="$_cgiplus_v${_cgiplus_m%% *}
"; _cgiplus_m=${_cgiplus_m#* } ;;
        *) break ;;
        esac
    done
    _cgiplus_v="$_cgiplus_v$_cgiplus_m
-----END CERTIFICATE-----$_cgiplus_t"
}

_cgiplus_set() {
    _cgiplus_n=${1%%=*}
    [ "$_cgiplus_n" != "$1" ] && [ -n "$_cgiplus_n" ] || return 1
    case $_cgiplus_n in
    [!A-Za-z_]* | *[!A-Za-z0-9_]*) return 0 ;;
    IFS | PS1 | PS2 | PS3 | PS4 | ENV | CDPATH | OPTIND | OPTARG | CGIPLUS* | _cgiplus_*)
        return 0 ;;
    esac
    case " $_cgiplus_names " in
    *" $_cgiplus_n "*) ;;
    *)
        # Set before this request: the worker's own value, kept for later.
        case " $_cgiplus_saved " in
        *" $_cgiplus_n "*) ;;
        *)
            if eval "[ \"\${$_cgiplus_n+set}\" = set ]"; then
                eval "_cgiplus_b_$_cgiplus_n=\$$_cgiplus_n"
                _cgiplus_saved="$_cgiplus_saved $_cgiplus_n"
            fi ;;
        esac
        _cgiplus_names="$_cgiplus_names $_cgiplus_n" ;;
    esac
    _cgiplus_k=$_cgiplus_n
    while :; do   # an internal redirect's REDIRECT_ copies
        case $_cgiplus_k in REDIRECT_?*) _cgiplus_k=${_cgiplus_k#REDIRECT_} ;; *) break ;; esac
    done
    case $_cgiplus_k in
    SSL_CLIENT_CERT | SSL_SERVER_CERT | SSL_CLIENT_CERT_CHAIN_[0-9]*)
        _cgiplus_pem "${1#*=}"
        export "$_cgiplus_n=$_cgiplus_v"
        return 0 ;;
    esac
    export "$_cgiplus_n=${1#*=}"
}

cgiplus_accept() {
    if [ "$_cgiplus_init" = 0 ]; then
        _cgiplus_init=1
        [ -n "${CGIPLUSEOF-}" ] || return 0   # plain CGI: one request
        _cgiplus_persistent=1
        _cgiplus_eof=$CGIPLUSEOF
        case ${CGIPLUSIN-} in
        '' | /dev/fd/3) ;;
        *)
            if ! exec 3<"$CGIPLUSIN"; then
                _cgiplus_log 3007 "cannot open CGIPLUSIN $CGIPLUSIN"
                return 2
            fi ;;
        esac
    elif [ "$_cgiplus_persistent" = 0 ]; then
        return 1
    fi
    [ "$_cgiplus_in_request" = 1 ] && cgiplus_finish
    # The ready line: nothing more of ours comes before the next record, so
    # the server may send it whole (docs/PROTOCOL.md).
    [ "$_cgiplus_had" = 1 ] && printf '%s+\n' "$_cgiplus_eof"
    _cgiplus_had=0
    _cgiplus_forget
    _cgiplus_line=
    if ! IFS= read -r _cgiplus_line <&3; then
        [ -z "$_cgiplus_line" ] && return 1       # clean end: the runner is done
        _cgiplus_log 3003 "request channel ended inside a request"
        return 2
    fi
    if [ "$_cgiplus_line" != "!" ]; then
        _cgiplus_log 3001 "bad sync record (neither \"!\" nor \"!!N\"; struct mode is not supported in sh)"
        return 2
    fi
    while :; do
        _cgiplus_line=
        if ! IFS= read -r _cgiplus_line <&3; then
            _cgiplus_log 3003 "request channel ended inside a request"
            return 2
        fi
        [ -z "$_cgiplus_line" ] && break
        if ! _cgiplus_set "$_cgiplus_line"; then
            _cgiplus_log 3002 "malformed variable record"
            return 2
        fi
    done
    _cgiplus_in_request=1
    _cgiplus_had=1
    return 0
}

cgiplus_body() {
    case ${CONTENT_LENGTH:-0} in
    0 | *[!0-9]*) return 0 ;;
    esac
    # head -c reads exactly the count asked for, never past it.
    head -c "$CONTENT_LENGTH"
}

cgiplus_finish() {
    [ "$_cgiplus_in_request" = 1 ] || return 0
    _cgiplus_in_request=0
    printf '%s\n' "$_cgiplus_eof"
}

cgiplus_callout() {
    cgiplus_answer=
    cgiplus_is_persistent || return 2
    case $1 in
    '' | *'
'*) return 2 ;;
    esac
    # From the environment: requests never override CGIPLUS* (see _cgiplus_set).
    printf '%s\n%s\n%s\n' "${CGIPLUSESC-}" "$1" "${CGIPLUSEOT-}"
    case $1 in
    '!'* | '#'*) return 0 ;;
    esac
    IFS= read -r cgiplus_answer <&3 || return 2
    cgiplus_answer=${cgiplus_answer%"$_cgiplus_cr"}
    case $cgiplus_answer in
    2*) return 0 ;;
    esac
    return 1
}
