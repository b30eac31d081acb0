# Imported by env.py: a module stays loaded in the engine, so its state
# carries from one request to the next (under plain CGI it is 1 each time).
hits = 0
