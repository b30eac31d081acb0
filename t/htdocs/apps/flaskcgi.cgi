#!/usr/bin/python3
# A Flask application run as CGI the way Flask's documentation deploys it
# ("CGI": wsgiref.handlers.CGIHandler().run(app)), unmodified: routes, a
# query, a form, an upload, a session cookie and its redirect, a cookie of
# the client's own, headers, an abort, an exception, a 404.
import hashlib
import os
from wsgiref.handlers import CGIHandler

from flask import Flask, abort, jsonify, make_response, redirect, request, session, url_for

app = Flask(__name__)
app.secret_key = "not secret: a test"


@app.route("/")
def index():
    return "home, x=%s\n" % request.args.get("x", "none")


@app.route("/hello/<name>")
def hello(name):
    return "hello %s\n" % name


@app.route("/form", methods=["POST"])
def form():
    return jsonify(form=request.form.to_dict(flat=False), args=request.args.to_dict(flat=False))


@app.route("/upload", methods=["POST"])
def upload():
    f = request.files.get("f")
    if f is None:
        return "no file\n", 400
    data = f.read()
    return "%s %s %d %s\n" % (f.filename, f.mimetype, len(data), hashlib.sha1(data).hexdigest())


@app.route("/login", methods=["GET", "POST"])
def login():
    session["user"] = request.values.get("u", "anon")
    return redirect(url_for("whoami"))


@app.route("/whoami")
def whoami():
    return "user=%s\n" % session.get("user", "nobody")


@app.route("/cookie")
def cookie():
    resp = make_response("seen cookie: %s\n" % request.cookies.get("flavour", "none"))
    resp.set_cookie("flavour", "rye", path="/")
    resp.headers["X-Seen"] = request.headers.get("X-Test", "none")
    return resp


@app.route("/env")
def env():
    e = request.environ
    return "".join("%s=%s\n" % (k, e.get(k, "-"))
                   for k in ("HTTP_COOKIE", "HTTP_X_TEST", "HTTP_REFERER", "CONTENT_TYPE",
                             "HTTP_AUTHORIZATION", "QUERY_STRING", "PATH_INFO", "REQUEST_METHOD"))


@app.route("/teapot")
def teapot():
    abort(418)


@app.route("/die")
def die():
    raise RuntimeError("boom")


@app.route("/pid")
def pid():
    return "pid=%d\n" % os.getpid()


CGIHandler().run(app)
