"""Every release method of every releaser, for the budget tests."""

import json


from _releaser_catalogue import CENTRAL, LOCAL, RELEASE_METHODS

# every release method of every releaser (the one catalogue); `CENTRAL` ones take `array=`
ALL = RELEASE_METHODS


def _call(releaser, method, x, args, **kw):
    return getattr(releaser, method)(x, *args, **kw)


def _state(gen):
    return json.dumps(gen.bit_generator.state, sort_keys=True, default=int)
