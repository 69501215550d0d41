"""The simulation lab: bot tournaments and rule-variant studies with reports.

The lab is not a bot, so it may read the full state of the games it plays
(round results, hand sizes); the bots themselves still only see their views.

* :mod:`spieltisch.lab.config` - parsing and validating line-ups, rule
  options and variants, seeds derived from ``(seed, game index)``;
* :mod:`spieltisch.lab.play` - one game as a picklable task and its result;
* :mod:`spieltisch.lab.runner` - running tasks in-process, on local worker
  processes or on a Ray cluster, always returning results in task order;
* :mod:`spieltisch.lab.stats` - Wilson intervals, TrueSkill ratings and the
  summaries;
* :mod:`spieltisch.lab.paired` - measures with bootstrap intervals and paired
  differences between rule sets on the same deals;
* :mod:`spieltisch.lab.tournament` / :mod:`spieltisch.lab.variants` /
  :mod:`spieltisch.lab.design` - the studies (the design search uses Optuna);
  :mod:`spieltisch.lab.report` and :mod:`spieltisch.lab.plots` - terminal,
  JSON, CSV and HTML output.
"""

from __future__ import annotations

from spieltisch.lab.config import LabError

__all__ = ["LabError"]
