# In the handler phase httpd has stat()ed the file before the fast path
# answers: a file changed within CGIplusStaticRevalidate is then served as
# it is now, as httpd's default handler serves it, not from the cache (the
# interval is a day here, so only that stat can notice). A file removed is a
# 404 at once, as the default handler answers, and a precompressed variant
# rewritten is sent as it is now (the lookup that checks it stats it). One child, one
# keep-alive connection: the same cache answers every request. A private
# httpd with only mod_cgiplus and mod_alias.
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

my $vars = Apache::Test::config()->{vars};
my $dir = private_dir('staticfresh');
my $port = free_port();
my $docs = "$dir/docs";
mkdir $docs, 0755 or die "$docs: $!";
chmod 0755, $docs;

sub put {
    my ($text) = @_;
    open my $fh, '>', "$docs/f.txt" or die "$docs/f.txt: $!";
    print $fh $text;
    close $fh;
    chmod 0644, "$docs/f.txt";
}

open my $fh, '>', "$dir/httpd.conf" or die "$dir/httpd.conf: $!";
print $fh private_conf($dir, $port, ['alias'], <<"CONF");
LogLevel info cgiplus:trace2
StartServers 1
ServerLimit 1
ThreadsPerChild 8
MaxRequestWorkers 8
MinSpareThreads 1
MaxSpareThreads 8
CGIplusStaticRevalidate 86400000
CGIplusStatic /h $docs phase=handler
Alias /p $docs
<Directory $docs>
    Require all granted
</Directory>
CONF
close $fh;

put("first\n");
utime time - 100, time - 100, "$docs/f.txt";
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'httpd starts');

my $ua = LWP::UserAgent->new(keep_alive => 1, timeout => 30);
sub get {
    my ($path) = @_;
    my $r = $ua->request(HTTP::Request->new(GET => "http://127.0.0.1:$port$path"));
    return join '|', $r->code, $r->content, map { $r->header($_) // '-' }
        qw(Content-Length Last-Modified ETag);
}

my $first = get('/h/f.txt');
ok t_cmp($first, qr/^200\|first\n\|6\|/, 'the file, now cached');

# Rewritten in place (other length, other mtime).
put("the second version\n");
utime time - 50, time - 50, "$docs/f.txt";
ok t_cmp(get('/p/f.txt'), qr/^200\|the second version\n\|19\|/,
         '(the default handler sends the new version)');
ok t_cmp(get('/h/f.txt'), get('/p/f.txt'),
         'phase=handler: the new version, with its length and validators');

# Same length, only the mtime changes: new Last-Modified and ETag.
utime time - 20, time - 20, "$docs/f.txt";
ok t_cmp(get('/h/f.txt'), get('/p/f.txt'), 'phase=handler: a new mtime is seen at once');

# It was the fast path that answered, from the reloaded entry.
open my $el, '<', "$dir/error_log" or die "$dir/error_log: $!";
my @answered = grep { /CGIPLUS1503: handler: \S+\/f\.txt answered from memory/ } <$el>;
ok t_cmp(scalar(@answered), 3, 'the fast path answered each /h/ request');
# And it still answers from its cache while the file stays the same.
ok t_cmp(get('/h/f.txt'), get('/p/f.txt'), 'unchanged: the same answer');

# Removed: httpd's stat finds nothing; the default handler says 404, and so
# must the fast path, not send the cached bytes.
unlink "$docs/f.txt" or die "$docs/f.txt: $!";
ok t_cmp(get('/p/f.txt'), qr/^404\|/, '(the default handler: 404 for a removed file)');
ok t_cmp((split /\|/, get('/h/f.txt'))[0], 404, 'phase=handler: a removed file is a 404 at once');

# A precompressed variant rewritten in place (another length, another mtime).
sub write_file {
    my ($name, $bytes, $age) = @_;
    open my $out, '>', "$docs/$name" or die "$docs/$name: $!";
    binmode $out;
    print $out $bytes;
    close $out;
    chmod 0644, "$docs/$name";
    utime time - $age, time - $age, "$docs/$name";
}
write_file('g.txt', "plain text\n", 100);
write_file('g.txt.gz', "gz-one", 100);
sub get_gz {
    my $r = $ua->request(HTTP::Request->new(GET => "http://127.0.0.1:$port/h/g.txt",
                                            ['Accept-Encoding' => 'gzip']));
    return join '|', $r->code, $r->header('Content-Encoding') // '-', $r->content,
        $r->header('Content-Length') // '-';
}
ok t_cmp(get_gz(), '200|gzip|gz-one|6', 'the variant, now cached');
write_file('g.txt.gz', "gz-the-second", 50);
ok t_cmp(get_gz(), '200|gzip|gz-the-second|13', 'phase=handler: a rewritten variant is sent as it is now');
unlink "$docs/g.txt.gz" or die "$docs/g.txt.gz: $!";
ok t_cmp(get_gz(), "200|-|plain text\n|11", 'phase=handler: a removed variant is not sent');
private_stop("$dir/httpd.pid");
