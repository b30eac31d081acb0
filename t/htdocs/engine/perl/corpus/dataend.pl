#!/usr/bin/perl
# __END__ and a line read twice, across runs: each run's DATA starts at the data.
print "Content-Type: text/plain\n\n", scalar(<DATA>), scalar(<DATA>) // "(end)\n";
__END__
first after end
