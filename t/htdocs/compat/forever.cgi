#!/usr/bin/perl
# A plain CGI script that streams until its client leaves (t/53_gone_stream.t):
# under mod_cgi(d) its next write after that fails and it dies.
$| = 1;
print "Content-Type: text/plain\n\npid=$$\n";
while (1) {
    print "line\n";
    select(undef, undef, undef, 0.01);
}
