#!/bin/bash
# bench/soak-mix/churn.sh RUN PORT N: config churn: N graceful restarts, each with new settings for the c1/pl1/py1
# pools (a new pool per reload), requests in between. $1 run dir, $2 port, $3 N
RUN=$1; PORT=$2; N=${3:-30}
B=http://127.0.0.1:$PORT
grep -q churn.conf $RUN/httpd.conf || echo "IncludeOptional $RUN/churn.conf" >> $RUN/httpd.conf
for i in $(seq 1 $N); do
  printf '<LocationMatch "^/(c|pl|py)1/">\n    CGIplusMaxRequests %d\n</LocationMatch>\n' $((1000 + i)) > $RUN/churn.conf
  /usr/sbin/apache2 -f $RUN/httpd.conf -k graceful
  sleep 2
  for u in /c1/hello /pl1/hello.pl /py1/hello.py /c1/echo; do curl -s -m 20 -o /dev/null $B$u; curl -s -m 20 -o /dev/null $B$u; done
  curl -s -m 20 -d hello -o /dev/null $B/c1/echo
  j=$(curl -s -m 20 "$B/cgiplus-status?json")
  echo "$i $(date +%T) $(echo "$j" | python3 -c 'import json,sys; d=json.load(sys.stdin); ps=d["pools"]; print("pools", len(ps), "retired", sum(p["retired"] for p in ps), "workers", d["runner"]["workers"])') runner $(grep VmRSS /proc/$(cat $RUN/cgiplus-runner.pid)/status | awk '{print $2}')kB fds $(ls /proc/$(cat $RUN/cgiplus-runner.pid)/fd | wc -l)"
  sleep 3
done
