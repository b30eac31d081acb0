#!/bin/sh
# bench/soak-mix/setup.sh: writes RUN/httpd.conf (a private httpd, event MPM,
# on 127.0.0.1:PORT) with pools of every worker kind: CGIplus C, Perl and
# Python library scripts (direct and relayed), the Perl, Python and PHP
# engines, a libfcgi FastCGI application, PHP through fcgid-script, a WSGI
# application, WebSocket echo scripts, CGIplusCompat plain CGI, the static
# fast path; and pools for timeouts (504), a tiny queue (503) and a body
# limit (413). RUN is removed and made again. Then:
#   apache2 -f $RUN/httpd.conf -k start; RUN=.. PORT=.. bench/soak-mix/drive.py MINUTES SAMPLES.jsonl
# RUNNER=/path/to/wrapper runs the runner through it (valgrind).
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
: "${RUN:?RUN=directory of the private httpd}"
: "${PORT:?PORT=its port on 127.0.0.1}"
[ -x "$TOP/t/src/fcgi_app" ] || { echo "build t/src/fcgi_app first (make t/src/fcgi_app)" >&2; exit 2; }
rm -rf $RUN; mkdir -p $RUN/ex $RUN/htdocs $RUN/static $RUN/compat $RUN/php $RUN/phpf $RUN/wsgi $RUN/eperl $RUN/epy
chmod 755 $RUN
ln -s $TOP/lib $RUN/lib
for l in c perl python; do mkdir -p $RUN/ex/$l; done
cp $TOP/examples/c/hello $TOP/examples/c/echo $TOP/examples/c/ws_echo $RUN/ex/c/
cp $TOP/examples/perl/echo.pl $TOP/examples/perl/hello.pl $TOP/examples/perl/ws_echo.pl $RUN/ex/perl/
cp $TOP/examples/python/echo.py $TOP/examples/python/hello.py $TOP/examples/python/ws_echo.py $RUN/ex/python/
# library path for the copies: ../../lib from ex/<lang>/
cp $TOP/t/htdocs/pool/app.pl $RUN/ex/perl/app.pl
cp $TOP/t/src/fcgi_app $RUN/ex/c/fcgi_app
cp $TOP/t/htdocs/engine/perl/hello.pl $TOP/t/htdocs/engine/perl/form.pl $RUN/eperl/
cp $TOP/t/htdocs/engine/python/hello.py $TOP/t/htdocs/engine/python/form.py $RUN/epy/
cat > $RUN/php/hello.php <<'P'
<?php
$n = isset($_GET['n']) ? intval($_GET['n']) : 1;
header('X-Pid: ' . getmypid());
if (isset($_GET['sleep'])) usleep(intval($_GET['sleep']) * 1000);
if ($_SERVER['REQUEST_METHOD'] == 'POST') { $b = file_get_contents('php://input'); echo "len=", strlen($b), " md5=", md5($b), "\n"; }
for ($i = 0; $i < $n; $i++) echo "hello from php ", getmypid(), " line $i\n";
if (isset($_GET['crash'])) posix_kill(getmypid(), 9);
P
cp $RUN/php/hello.php $RUN/phpf/hello.php
cat > $RUN/wsgi/app.py <<'P'
import os, time
def app(environ, start_response):
    q = environ.get('QUERY_STRING', '')
    if 'sleep' in q:
        time.sleep(float(q.split('sleep=')[1].split('&')[0]))
    body = environ['wsgi.input'].read() if environ.get('REQUEST_METHOD') == 'POST' else b''
    out = b'wsgi pid %d len %d\n' % (os.getpid(), len(body))
    if 'big' in q:
        out = out * 20000
    start_response('200 OK', [('Content-Type', 'text/plain'), ('Content-Length', str(len(out)))])
    return [out]
P
printf '#!%s\napp app:app\npath %s\n' $TOP/lib/python/cgiplus-wsgi $RUN/wsgi > $RUN/wsgi/app.cgp
chmod 755 $RUN/wsgi/app.cgp
cat > $RUN/compat/plain.cgi <<'P'
#!/bin/sh
echo "Content-Type: text/plain"
echo
echo "plain cgi $$ $QUERY_STRING"
if [ "$REQUEST_METHOD" = POST ]; then wc -c; fi
P
chmod 755 $RUN/compat/plain.cgi
head -c 3000 /dev/urandom | base64 > $RUN/static/small.txt
head -c 300000 /dev/urandom > $RUN/static/big.bin
head -c 2000000 /dev/urandom > $RUN/htdocs/body2m
head -c 100000 /dev/urandom > $RUN/htdocs/body100k
head -c 1000 /dev/urandom > $RUN/htdocs/body1k
chmod -R a+rX $RUN
LIBEXEC=$(apxs -q LIBEXECDIR)
cat > $RUN/httpd.conf <<C
ServerRoot "$RUN"
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
PidFile "$RUN/httpd.pid"
DefaultRuntimeDir "$RUN"
ErrorLog "$RUN/error_log"
LogLevel warn
User nobody
Group nogroup
LoadModule mpm_event_module $LIBEXEC/mod_mpm_event.so
LoadModule authz_core_module $LIBEXEC/mod_authz_core.so
LoadModule mime_module $LIBEXEC/mod_mime.so
LoadModule alias_module $LIBEXEC/mod_alias.so
LoadModule http2_module $LIBEXEC/mod_http2.so
LoadModule cgiplus_module $TOP/mod_cgiplus/.libs/mod_cgiplus.so
LogFormat "%h %t \"%r\" %>s %B %D" soak
CustomLog "$RUN/access_log" soak
Protocols h2c http/1.1
H2WebSockets on
ServerLimit 4
StartServers 2
ThreadsPerChild 32
MaxRequestWorkers 128
Timeout 30
KeepAlive On
TypesConfig /etc/mime.types
DocumentRoot "$RUN/htdocs"
<Directory />
    Require all granted
    AllowOverride None
</Directory>
CGIplusRunnerPath "${RUNNER:-$TOP/runner/cgiplus-runner}"
CGIplusSpawnBackoff 200ms 2s
CGIplusKillGrace 1s
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
CGIplusStatic /static/ $RUN/static

# CGIplus C and library scripts (two URL scopes each, so several pools)
AliasMatch ^/(c1|c2)/(hello|echo|ws_echo)\$ $RUN/ex/c/\$2
AliasMatch ^/(pl1|pl2)/(hello|echo|app|ws_echo)\.pl\$ $RUN/ex/perl/\$2.pl
AliasMatch ^/(py1|py2)/(hello|echo|ws_echo)\.py\$ $RUN/ex/python/\$2.py
<Directory $RUN/ex>
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusSetEnv PERL5LIB $TOP/lib/perl
    CGIplusIdleTimeout 20s
</Directory>
<LocationMatch "^/(c|pl|py)1/">
    CGIplusMaxWorkers 3
    CGIplusMinIdle 1
</LocationMatch>
<LocationMatch "^/(c|pl|py)2/">
    CGIplusMaxWorkers 2
    CGIplusDirect off
</LocationMatch>
# timeouts (504), a tiny queue (503), a body limit (413)
AliasMatch ^/(slow|tiny|lim)/app\.pl\$ $RUN/ex/perl/app.pl
<Location /slow/>
    CGIplusMaxWorkers 2
    CGIplusTimeoutOutput 2s
    CGIplusTimeoutNoProgress 1s
</Location>
<Location /tiny/>
    CGIplusMaxWorkers 1
    CGIplusQueueDepth 1
    CGIplusQueueWait 1s
</Location>
<Location /lim/>
    CGIplusMaxWorkers 2
    LimitRequestBody 1000
</Location>
# FastCGI libfcgi app, direct and relayed
AliasMatch ^/(fc1|fc2)/fcgi_app\$ $RUN/ex/c/fcgi_app
<LocationMatch "^/fc[12]/">
    CGIplusMode fastcgi
    CGIplusMaxWorkers 2
    CGIplusTimeoutNoProgress 2s
</LocationMatch>
<Location /fc2/>
    CGIplusDirect off
    CGIplusMaxRequests 50
</Location>
# engines
AliasMatch ^/(ep1|ep2)/(.*)\$ $RUN/eperl/\$2
AliasMatch ^/(ey1|ey2)/(.*)\$ $RUN/epy/\$2
AliasMatch ^/(ephp1|ephp2)/(.*)\$ $RUN/php/\$2
<Directory $RUN/eperl>
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusEngine $TOP/lib/perl/cgiplus-engine-perl
    CGIplusMaxWorkers 2
    CGIplusIdleTimeout 20s
</Directory>
<Directory $RUN/epy>
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusEngine $TOP/lib/python/cgiplus-engine-python
    CGIplusMaxWorkers 2
    CGIplusIdleTimeout 20s
</Directory>
<Directory $RUN/php>
    Options +ExecCGI
    AddHandler cgiplus-script .php
    CGIplusEngine php
    CGIplusMaxWorkers 2
    CGIplusIdleTimeout 20s
</Directory>
<LocationMatch "^/e(p|y|php)2/">
    CGIplusDirect off
    CGIplusMaxRequests 40
</LocationMatch>
# php through fcgid-script (mod_fcgid's configuration, mod_fcgid not loaded)
Alias /fcgid/ $RUN/phpf/
<Directory $RUN/phpf>
    Options +ExecCGI
    AddHandler fcgid-script .php
    FcgidWrapper /usr/bin/php-cgi .php
</Directory>
# WSGI
Alias /wsgi/ $RUN/wsgi/
<Directory $RUN/wsgi>
    Options +ExecCGI
    AddHandler cgiplus-script .cgp
    CGIplusMaxWorkers 2
    CGIplusIdleTimeout 20s
</Directory>
# CGIplusCompat: plain CGI through mod_cgi's configuration
ScriptAlias /cgi-bin/ $RUN/compat/
<Location /cgi-bin/>
    CGIplusCompat on
</Location>
C
chmod 644 $RUN/httpd.conf
echo ok
