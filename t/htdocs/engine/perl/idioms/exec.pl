#!/usr/bin/perl
# exec: the program replaces the process, its output is the rest of the
# response, its exit ends it (Debian's dwww execs its converter); an exec
# that fails returns and the script goes on. t/58_engine_idioms.t
$runs++;
if (($ENV{QUERY_STRING} // '') eq 'fail') {
    exec { '/nonexistent/program' } 'program';
    print "Content-Type: text/plain\n\nexec failed: ", ($! ? 'errno set' : 'no errno'), ", run $runs\n";
    exit;
}
$ENV{FROM_SCRIPT} = "run $runs";
print "Content-Type: text/plain\n\nthe script's header, then:\n";
exec { '/bin/sh' } 'sh', '-c', 'echo "the program: $FROM_SCRIPT, query $QUERY_STRING"';
