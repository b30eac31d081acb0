#!/usr/bin/perl
# exec: the script becomes another program that answers.
exec '/bin/sh', '-c', 'printf "Content-Type: text/plain\n\nexec answered\n"';
