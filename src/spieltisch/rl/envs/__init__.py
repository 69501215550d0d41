"""The environments: PettingZoo (``spieltisch.rl.scout_v0``, ``spieltisch.rl.schmaus_v0``),
Gymnasium and OpenSpiel, all around one :class:`~spieltisch.rl.episode.Episode`."""
