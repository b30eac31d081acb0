# ForceType and SetHandler at server or virtual-host level hold in quick
# mode too: httpd applies them in the core's fixup (core_override_type),
# after its type checkers, and a quick answer never reaches the fixups. The
# fast path sends the forced type, as the default handler does, and leaves a
# file with a handler set so to httpd (here mod_status's page), and so a
# file with SetOutputFilter there (the core adds those filters in its
# insert_filter hook: here mod_deflate). A private httpd: three name-based
# virtual hosts, each serving the same directory by
# the default handler (/p), quick (/q) and in the handler phase (/h).
use strict;
use warnings FATAL => 'all';
use lib 't/lib';
use Apache::Test;
use Apache::TestUtil;
use FreePort qw(free_port);
use PrivateHttpd qw(private_conf private_start private_stop private_dir);
use HTTP::Request;
use LWP::UserAgent;

plan tests => 12;

my $dir = private_dir('staticforce');
my $port = free_port();
my $docs = "$dir/docs";
mkdir $docs, 0755 or die "$docs: $!";
chmod 0755, $docs;
open my $fh, '>', "$docs/a.txt" or die "$docs/a.txt: $!";
print $fh "just text\n";
close $fh;
open $fh, '>', "$docs/b.txt" or die "$docs/b.txt: $!";
print $fh "line $_ of some text to compress\n" for 1 .. 100;
close $fh;
chmod 0644, "$docs/a.txt", "$docs/b.txt";
utime time - 100, time - 100, "$docs/a.txt", "$docs/b.txt";

my $vhost = sub {
    my ($name, $line) = @_;
    return <<"V";
<VirtualHost 127.0.0.1:$port>
    ServerName $name
    DocumentRoot $docs
    $line
    CGIplusStatic /q $docs
    CGIplusStatic /h $docs phase=handler
    Alias /p $docs
</VirtualHost>
V
};
open $fh, '>', "$dir/httpd.conf" or die "$dir/httpd.conf: $!";
print $fh private_conf($dir, $port, ['alias', 'mime', 'status', 'deflate'], <<"CONF"
LogLevel info cgiplus:trace2
TypesConfig /etc/mime.types
<Directory $docs>
    Require all granted
</Directory>
CONF
    . $vhost->('forced.test', 'ForceType text/x-forced')
    . $vhost->('handled.test', 'SetHandler server-status')
    . $vhost->('filtered.test', 'SetOutputFilter DEFLATE'));
close $fh;
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'httpd starts');

my $ua = LWP::UserAgent->new(keep_alive => 1, timeout => 30);
sub get {
    my ($host, $path) = @_;
    my $r = $ua->request(HTTP::Request->new(GET => "http://127.0.0.1:$port$path",
                                            [Host => $host]));
    my $body = $r->content =~ /Apache Server Status/ ? 'status page' : $r->content;
    return join '|', $r->code, $r->header('Content-Type') // '-', $body;
}

ok t_cmp(get('forced.test', '/p/a.txt'), "200|text/x-forced|just text\n",
         '(the default handler: the forced type)');
ok t_cmp(get('forced.test', '/q/a.txt'), get('forced.test', '/p/a.txt'),
         'quick: ForceType of the virtual host holds');
ok t_cmp(get('forced.test', '/q/a.txt'), get('forced.test', '/p/a.txt'),
         'quick: the same from the cache');
ok t_cmp(get('forced.test', '/h/a.txt'), get('forced.test', '/p/a.txt'),
         'phase=handler: the forced type');

open my $el, '<', "$dir/error_log" or die "$dir/error_log: $!";
my @quick = grep { /CGIPLUS1503: quick: \S+\/a\.txt answered/ } <$el>;
close $el;
ok t_cmp(scalar(@quick), 2, 'the quick handler answered both /q/ requests itself');

ok t_cmp(get('handled.test', '/p/a.txt'), qr/^200\|text\/html.*\|status page$/,
         '(the default path: SetHandler runs mod_status)');
ok t_cmp(get('handled.test', '/q/a.txt'), get('handled.test', '/p/a.txt'),
         'quick: SetHandler of the virtual host holds (httpd runs the handler)');
ok t_cmp(get('handled.test', '/h/a.txt'), get('handled.test', '/p/a.txt'),
         'phase=handler: the same');
sub get_gz {
    my ($path) = @_;
    my $r = $ua->request(HTTP::Request->new(GET => "http://127.0.0.1:$port$path",
                                            [Host => 'filtered.test',
                                             'Accept-Encoding' => 'gzip']));
    return join '|', $r->code, $r->header('Content-Encoding') // '-',
        length($r->content), $r->header('Vary') // '-';
}
ok t_cmp(get_gz('/p/b.txt'), qr/^200\|gzip\|\d+\|Accept-Encoding$/,
         '(the default path: SetOutputFilter DEFLATE compresses)');
ok t_cmp(get_gz('/q/b.txt'), get_gz('/p/b.txt'),
         'quick: SetOutputFilter of the virtual host holds');
ok t_cmp(get_gz('/h/b.txt'), get_gz('/p/b.txt'), 'phase=handler: the same');
private_stop("$dir/httpd.pid");
