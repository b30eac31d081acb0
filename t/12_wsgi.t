# A standard-library WSGI application runs persistently via run_wsgi.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET POST);
use lib 't/lib';
use MainLog qw(log_offset log_wait);

plan tests => 36;

my $u = '/scripts/wsgi_app.py';
my $r = GET "$u/";
ok t_cmp($r->code, 200, 'GET status');
ok t_cmp(scalar $r->header('Content-Type'), 'text/plain; charset=utf-8', 'GET content type');
my ($hits, $pid) = $r->content =~ /^hello wsgi hits=(\d+) pid=(\d+) method=GET multiprocess=True$/m;
ok defined $hits;
$r = GET "$u/";
my ($hits2, $pid2) = $r->content =~ /hits=(\d+) pid=(\d+)/;
ok t_cmp("$hits2 $pid2", ($hits + 1) . " $pid", 'the application persists between requests');

$r = POST "$u/post", content => "x" x 5000, 'Content-Type' => 'application/x-test';
ok t_cmp($r->code, 200, 'POST status');
ok t_cmp(length $r->content, 5000, 'POST body echoed');
ok t_cmp(scalar $r->header('X-Length'), 5000, 'wsgi.input read CONTENT_LENGTH bytes');
ok t_cmp(scalar $r->header('Content-Type'), 'application/x-test', 'CONTENT_TYPE passed');

$r = GET "$u/teapot";
ok t_cmp($r->code, 418, 'application status passed through');
ok t_cmp(scalar $r->header('X-Custom'), 'short and stout', 'application header passed through');
ok t_cmp($r->content, "teapot\n", 'body with a non-200 status');

$r = GET "$u/header", 'X-Test' => 'value 42';
ok t_cmp($r->content, "x-test=value 42\n", 'request header as HTTP_X_TEST');

$r = GET "$u/iter";
ok t_cmp($r->content, "line 0\nline 1\nline 2\n", 'an iterable response');

$r = POST "$u/post", content => '';
ok t_cmp(scalar $r->header('X-Length'), 0, 'an empty POST');

# PEP 3333, as mod_wsgi: each environ value is the bytes httpd got, one
# character a byte (latin-1); UTF-8 decoding made Django answer 500 for a
# path with a character past U+00FF and Werkzeug see U+FFFD for the rest.
$r = GET "$u/raw/%E2%98%83%C3%A9", 'X-Test' => "Zo\xc3\xab";
ok t_cmp($r->code, 200, 'a path with a character past U+00FF');
ok t_cmp($r->content, "path=/raw/\xe2\x98\x83\xc3\xa9 x-test=Zo\xc3\xab\n",
         "the path's bytes and a header's as native strings (latin-1)");

# "Connection: close" from the application: wsgiref's hop-by-hop assertion
# made it a 500; mod_wsgi hands it to httpd, which closes the connection
# after the response, as for a CGI script's.
$r = GET "$u/close";
ok t_cmp($r->code . ' ' . $r->content, "200 closing\n", 'an application sending Connection: close');
ok t_cmp(join(',', $r->header('Connection')), qr/\bclose\b/, 'and httpd closes the connection');

# A program the application runs that reads its stdin (subprocess.run(["cat"]),
# ffmpeg, ssh) gets its end at once: descriptor 0 is /dev/null, as under
# mod_wsgi, and wsgi.input reads a private copy of the requests' pipe. It
# was that pipe, which never ends: the child waited until the request's
# timeout, and took any body not read yet (a later request's, from a child
# still running between requests).
$r = GET "$u/child";
ok t_cmp($r->content, "child=b'' body=b'' pid=$pid\n", "a child reading stdin: its end at once, same worker");
$r = POST "$u/child", content => 'abc123';
ok t_cmp($r->content, "child=b'' body=b'abc123' pid=$pid\n", 'after the body: the body read, the child at its end');
$r = POST "$u/post", content => 'after';
ok t_cmp($r->content, 'after', 'the next body reaches wsgi.input whole');
ok t_cmp(scalar $r->header('X-Length'), 5, 'and only it');

# The iterable's close() fails once the response is whole: the error is
# logged and the response stands, as under mod_wsgi. wsgiref forgot the
# response it had sent and appended a 500 ("Status: 500...") to the body.
my $off = log_offset();
$r = GET "$u/closefails";
ok t_cmp($r->code . ' ' . $r->content, "200 whole body pid=$pid\n", 'a close() that fails: the response as it was');
$r = GET "$u/";
ok t_cmp($r->content, qr/ pid=$pid /, 'the same worker serves on');
ok t_cmp(log_wait($off, qr/RuntimeError: close failed on purpose/), 1, 'the error is logged');

# A header value or status with a line break (a request's data put in a
# header) or a character past U+00FF is the application's error, a 500, as
# under mod_wsgi: a line break added a header the client saw, or ended the
# header and made the rest the body (response splitting); a snowman made
# wsgiref fail with the status line written, and the worker was abandoned
# (502, a new worker).
for my $kind (qw(lf crlf2 status snowman)) {
    $r = GET "$u/badheader?$kind";
    ok t_cmp($r->code . ' ' . ($r->header('X-Injected') // 'no X-Injected') . ' ' . $r->content,
             '500 no X-Injected A server error occurred.  Please contact the administrator.',
             "$kind: refused with a 500, nothing of it sent");
    $r = GET "$u/";
    ok t_cmp($r->content, qr/ pid=$pid /, "$kind: the same worker serves on");
}

# PEP 3333: the header goes out with the first non-empty block, as mod_wsgi
# sends it: an error after an empty first block is still a 500, and the
# worker goes on. wsgiref sent the header on the empty block: the client
# got a 200 cut short, and the worker was abandoned.
$r = GET "$u/emptyfirst";
ok t_cmp($r->code . ' ' . $r->content, '500 A server error occurred.  Please contact the administrator.',
         'an error after an empty first block: a 500');
$r = GET "$u/emptylead";
ok t_cmp($r->code . ' ' . $r->content, "200 after an empty block\n", 'an empty first block, then the body');
$r = GET "$u/";
ok t_cmp($r->content, qr/ pid=$pid /, 'the same worker serves on');
