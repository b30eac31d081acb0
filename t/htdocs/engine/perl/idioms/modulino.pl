#!/usr/bin/perl
# A modulino: its main runs only when the file is the program (`caller` at
# its top level is empty), as under mod_cgid (t/58_engine_idioms.t). What
# caller says from the top level, from subs and evals, @DB::args, and
# Carp's message are as there, the package's name aside.
use strict;
use warnings;
use Carp ();

sub fmt {
    return 'empty' unless @_;
    my @c = @_[0 .. ($#_ < 7 ? $#_ : 7)];
    for (@c) {
        $_ = 'u' unless defined;
        s/\A\Q${\__PACKAGE__}\E(?=::|\z)/PKG/;
        s{\A.*/}{};
    }
    return join ',', @c;
}

sub inner {
    my @args;
    { package DB; my @x = caller(0); @args = @DB::args }
    return join ' | ', 'scalar ' . (scalar(caller) // 'undef') eq 'scalar ' . __PACKAGE__ ? 'scalar PKG' : 'scalar other',
        fmt(caller), fmt(caller(0)), fmt(caller(1)), fmt(caller(2)), "args @args";
}

sub bad { Carp::croak('modulino-croak') }

sub main {
    my ($top) = @_;
    print "Content-Type: text/plain\n\n";
    print "top: $top\n";
    print 'inner: ', inner('a', 'b'), "\n";
    print 'eval: ', eval { fmt(caller(0)) . ' / ' . fmt(caller(1)) }, "\n";
    eval { bad() };
    (my $e = $@) =~ s{ at /\S*/}{ at }g;
    $e =~ s{\b\Q${\__PACKAGE__}\E::}{PKG::}g;
    print "croak: $e";
    return 0;
}

my $top = join ' ', fmt(caller), fmt(caller(0)), fmt(caller(1)),
                    defined(scalar caller) ? 'defined' : 'undef', scalar(my @l = caller);
exit main($top) unless caller;
