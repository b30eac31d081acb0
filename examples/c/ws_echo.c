/* ws_echo.c: a WebSocket echo in C. Each message goes back to its sender,
 * text or binary as it came; one worker holds many connections. */
#include <cgiplus.h>

int main(void)
{
    cgiplus_ws_event ev;

    while (cgiplus_ws_next(&ev) > 0) {
        if (ev.type == CGIPLUS_WS_OPEN)
            cgiplus_ws_accept(ev.conn, NULL);
        else if (ev.type == CGIPLUS_WS_MESSAGE)
            cgiplus_ws_send(ev.conn, ev.binary, ev.data, ev.len);
    }
    return 0;
}
