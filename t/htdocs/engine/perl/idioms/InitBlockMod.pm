package InitBlockMod;
# initblock.pl's module: its INIT block sets what the script prints.
use strict;
use warnings;
our $ready = 'not yet';
INIT { $ready = 'ready' }
1;
