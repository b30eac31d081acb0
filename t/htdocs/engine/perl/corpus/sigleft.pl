#!/usr/bin/perl
# Signal handlers a script sets and leaves (none of them local): %SIG's,
# POSIX::sigaction's. Each run starts with the dispositions a new process
# has: what %SIG says and what the kernel has (/proc/self/status). Not
# PIPE: which a CGI process inherits ignored depends on how httpd was
# started (CI's mod_cgid gave IGNORE, a shell's default).
use POSIX ();
sub state_of {
    my ($name) = @_;
    open my $fh, '<', '/proc/self/status' or return "$name: ?";
    my %mask = map { /\A(Sig(?:Ign|Cgt)):\s*([0-9a-f]+)/ ? ($1 => $2) : () } <$fh>;
    my $n = eval "POSIX::SIG$name()";
    my $bit = sub { my @h = reverse split //, $_[0]; my $i = $n - 1; hex($h[int($i / 4)] // 0) >> ($i % 4) & 1 };
    my $os = $bit->($mask{SigCgt}) ? 'caught' : $bit->($mask{SigIgn}) ? 'ignored' : 'default';
    return "$name: " . (defined $SIG{$name} ? ref $SIG{$name} || $SIG{$name} : 'unset') . ", $os";
}
print "Content-Type: text/plain\n\n";
print state_of($_), "\n" for qw(USR1 USR2 HUP);
$SIG{USR1} = sub { print "usr1\n" };
$SIG{HUP} = 'IGNORE';
POSIX::sigaction(POSIX::SIGUSR2(), POSIX::SigAction->new(sub { print "usr2\n" }));
