# CGI::Simple's settings are each CGI process's own: a script that enables
# uploads ($CGI::Simple::DISABLE_UPLOADS = 0, as CGI::Simple's synopsis
# does), lifts POST_MAX or gives header() a charset does so for its own
# runs on the Perl engine, not for the next script of the engine, which
# answers with CGI::Simple's defaults (no upload taken, ISO-8859-1), as
# under mod_cgid serving the same files.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 4,
    need { 'needs CGI::Simple (Debian package libcgi-simple-perl)' => eval { require CGI::Simple; 1 } };

my $up = 't/htdocs/engine/perl/idioms/simple_set.pl';
sub answer {
    my ($path, @args) = @_;
    my ($code, $h, $body) = curl(@args, url($path));
    return "$code " . ($h->{'content-type'} // '-') . "\n$body";
}
my @upload = ('-F', "f=\@$up;type=text/plain");
my $want_set = answer('/cgidperl/idioms/simple_set.pl', @upload);
my $want_plain = answer('/cgidperl/idioms/simple_plain.pl', @upload);
ok t_cmp($want_plain, "200 text/plain; charset=ISO-8859-1\nplain: disable_uploads=1 post_max=102400 file=simple_set.pl "
         . "error=405 Not Allowed - File uploads are disabled\n",
         'mod_cgid: CGI::Simple at its defaults refuses an upload');
# set, then plain, twice over, on the one engine
my @got = map { (answer('/eperl/idioms/simple_set.pl', @upload), answer('/eperl/idioms/simple_plain.pl', @upload)) } 1 .. 2;
ok t_cmp($want_set, qr/\A200 text\/plain; charset=utf-8\nset: uploads=1\n\z/, 'mod_cgid: the script that enables uploads takes one');
ok t_cmp("$got[0]\n--\n$got[2]", "$want_set\n--\n$want_set", 'engine: the script enabling uploads, as under mod_cgid');
ok t_cmp("$got[1]\n--\n$got[3]", "$want_plain\n--\n$want_plain",
         "engine: the next script has CGI::Simple's defaults (uploads off, POST_MAX, charset), as under mod_cgid");
