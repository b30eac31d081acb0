#!/usr/bin/perl
# write with a named format through $~ and $^.
our ($name, $qty);
format ITEM_TOP =
Name       Qty
--------------
.
format ITEM =
@<<<<<<<<< @>>
$name,     $qty
.
print "Content-Type: text/plain\n\n";
$~ = 'ITEM'; $^ = 'ITEM_TOP';
for (['apple', 3], ['pear', 12]) { ($name, $qty) = @$_; write }
