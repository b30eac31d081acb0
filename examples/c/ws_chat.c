/* ws_chat.c: a chat room in C. Every message goes to every member of the
 * room (all connections of the pool, whichever worker holds them) as
 * "name: text"; the name is ?name=... of the URL. A join and a leave are
 * said to the room too. Subprotocol "chat" is taken if offered. */
#include <cgiplus.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names of this worker's members: connection id -> name. */
struct member {
    unsigned long conn;
    char name[32];
};
static struct member *members;
static size_t nmembers, cap;

static struct member *find(unsigned long conn)
{
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].conn == conn)
            return &members[i];
    return NULL;
}

static void name_of(const char *qs, char *out, size_t len)
{
    const char *p = qs ? strstr(qs, "name=") : NULL;
    size_t n = 0;
    if (p)
        for (p += 5; *p && *p != '&' && n + 1 < len; p++)
            if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
                out[n++] = *p;
    if (!n)
        n = (size_t)snprintf(out, len, "guest");
    out[n] = '\0';
}

/* "who: text" to the whole room but except. */
static void say(unsigned long except, const char *who, const char *sep, const void *text,
                size_t tlen)
{
    size_t wl = strlen(who), sl = strlen(sep);
    char *line = malloc(wl + sl + tlen);
    if (!line)
        return;
    memcpy(line, who, wl);
    memcpy(line + wl, sep, sl);
    memcpy(line + wl + sl, text, tlen);
    cgiplus_ws_broadcast(except, 0, line, wl + sl + tlen);
    free(line);
}

int main(void)
{
    cgiplus_ws_event ev;

    while (cgiplus_ws_next(&ev) > 0) {
        struct member *m;
        switch (ev.type) {
        case CGIPLUS_WS_OPEN: {
            const char *proto = cgiplus_ws_getenv("HTTP_SEC_WEBSOCKET_PROTOCOL");
            if (nmembers == cap) {
                struct member *more = realloc(members, (cap ? 2 * cap : 64) * sizeof(*members));
                if (!more) {
                    const char *h[] = { "Content-Type", "text/plain" };
                    cgiplus_ws_refuse(ev.conn, 503, h, 1, "room full\n", 10);
                    break;
                }
                members = more;
                cap = cap ? 2 * cap : 64;
            }
            m = &members[nmembers++];
            m->conn = ev.conn;
            name_of(cgiplus_ws_getenv("QUERY_STRING"), m->name, sizeof(m->name));
            cgiplus_ws_accept(ev.conn, proto && strstr(proto, "chat") ? "chat" : NULL);
            say(0, "* ", m->name, " joined", 7);
            break;
        }
        case CGIPLUS_WS_MESSAGE:
            if (!ev.binary && (m = find(ev.conn)))
                say(0, m->name, ": ", ev.data, ev.len);
            break;
        case CGIPLUS_WS_CLOSE:
            if ((m = find(ev.conn))) {
                char who[40];
                snprintf(who, sizeof(who), "* %s", m->name);
                *m = members[--nmembers];
                say(ev.conn, who, " left", "", 0);
            }
            break;
        }
    }
    return 0;
}
