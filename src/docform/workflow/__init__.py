"""The workflows above the engine: load manifest sets, open API clients, plan, apply, check
drift, verify and export, one organization or several at a time.

The engine (`docform.engine`) only plans and applies what it is handed; this layer is where
manifests, kinds, the API client and the files around them (saved plans, docform.lock, the
apply lock) meet.
"""
