#!/etc/passwd
# Its #! line names a file that exists but is no program: exec is refused
# (EACCES) though the script itself is executable. mod_cgi answers 500.
echo "Content-Type: text/plain"
echo
echo unreachable
