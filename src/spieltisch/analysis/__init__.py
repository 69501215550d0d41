"""Analysis of played games, from what each seat could see: post-game reviews
(:mod:`.review`: every decision rated against the alternatives by sampled
worlds) and hints (:mod:`.hints`: the medium bot's move and why).

It models positions through the bots' public API (:mod:`spieltisch.bots.scout`,
:mod:`spieltisch.bots.schmaus`) and draws nothing: the terminal and the web
table render its results.
"""
