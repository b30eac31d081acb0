"""A Flask application (Debian's python3-flask) served persistently by
cgiplus-wsgi (t/15_wsgi_flask.t): uploads, chunked bodies, cookies,
redirects."""
import hashlib
import os

from flask import Flask, jsonify, redirect, request, url_for

app = Flask(__name__)
hits = 0


@app.route("/")
def index():
    global hits
    hits += 1
    return ("flask hits=%d pid=%d\n" % (hits, os.getpid()), 200,
            {"Content-Type": "text/plain"})


@app.route("/where")
def where():
    import flask
    import sys
    return ("%s %s\n" % (sys.executable, flask.__file__), 200,
            {"Content-Type": "text/plain"})


@app.route("/upload", methods=["POST"])
def upload():
    f = request.files.get("file")
    data = f.read() if f else b""
    return jsonify(name=f.filename if f else None, size=len(data),
                   sha256=hashlib.sha256(data).hexdigest(),
                   note=request.form.get("note"))


@app.route("/body", methods=["POST", "PUT"])
def body():
    data = request.get_data()
    return jsonify(size=len(data), sha256=hashlib.sha256(data).hexdigest())


@app.route("/login")
def login():
    resp = redirect(url_for("whoami"))
    resp.set_cookie("user", request.args.get("user", "anon"), httponly=True)
    return resp


@app.route("/whoami")
def whoami():
    return "user=%s\n" % request.cookies.get("user", "none")


@app.route("/uni/<name>")
def uni(name):
    return ("name=%s path=%s\n" % (name, request.path), 200,
            {"Content-Type": "text/plain; charset=utf-8"})


@app.route("/syspath")
def syspath():
    import sys
    return ("\n".join(sys.path) + "\n", 200, {"Content-Type": "text/plain"})
