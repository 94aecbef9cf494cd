"""Single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley & Whitehouse 2012).

The searching seat knows only its view, its legal commands and its redacted history. Each
iteration draws one determinization (a full state consistent with that information) from the
game's ``sample`` function and walks the one tree of the search with it:

* **Select**: at a node, the commands available in this determinization are its compatible
  children; each of them has its availability count raised, and among them UCB1 picks, with the
  availability count in place of the parent's visits (the paper's ISMCTS-UCB).
* **Expand**: an untried compatible command, chosen at random, gets a node; the walk stops there.
* **Roll out**: the playout's own rollout policy gives each seat's reward from there (a game's
  ``playout`` module, see ``domain.search.playout``; ``generic(game)``: uniform random legal
  commands to the end).
* **Back up**: every node on the path adds the reward of the seat that chose its command (see
  ``rewards``): with 3 or 4 players each seat maximises its own result.

Nodes are keyed by ``(seat, command)``: commands are frozen msgspec structs, so hashable. When
several seats owe a decision at once (Gangsta!'s discards and resource choices), their decisions
are moves taken in a fixed order, lowest seat first, as ``domain.play.play`` does; at the root,
the searching seat's own decision comes first, since that is the one being chosen.

Pure: the caller passes a clock and a budget (seconds), or an iteration cap (tests), or both;
for a given generator seed and iteration count the search returns the same command. Without a
clock every iteration draws its own determinization; with one, a determinization serves several
iterations when drawing them would take more than ``SAMPLE_SHARE`` of the time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Generic, TypeVar

from domain.core import C, E, S
from domain.rng import Rng
from domain.search.playout import MARGIN_WEIGHT as MARGIN_WEIGHT  # its home before playout.py
from domain.search.playout import Playout, rewards

F = TypeVar("F")  # a game's full state, as a sampler draws it
V = TypeVar("V")  # a seat's view of it
# (seat, view, history, rng) -> a full state consistent with what that seat knows.
Sampler = Callable[[int, V, list[E], Rng], F]

# UCB1's exploration constant for rewards in [0, 1] (the paper's 0.7).
EXPLORATION = 0.7
# At most this share of a timed search's time goes to drawing determinizations.
SAMPLE_SHARE = 0.3
# The prior command's bias at the root, PRIOR_BIAS / (visits + 1) on its UCB value.
PRIOR_BIAS = 0.5


class Node(Generic[C]):
    """One command in the tree, as chosen by ``seat``, with its statistics."""

    __slots__ = ("available", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.total = 0.0  # sum of this seat's rewards over the visits
        self.available = 0  # iterations in which this node's command was legal at its parent
        self.children: dict[tuple[int, C], Node[C]] = {}


def _mover(game: Playout[F, S, C], s: S) -> int:
    waiting = game.to_act(s)
    if not waiting:
        raise RuntimeError("game is not over but nobody is to act")
    return min(waiting)


def _ucb(child: Node) -> float:
    return child.total / child.visits + EXPLORATION * math.sqrt(
        math.log(child.available) / child.visits
    )


def _iterate(
    game: Playout[F, S, C],
    root: Node[C],
    seat: int,
    root_legal: list[C],
    s: S,
    rng: Rng,
    prior: tuple[int, C] | None,
    margin: float = MARGIN_WEIGHT,
) -> None:
    node = root
    path = [root]
    mover, legal = seat, root_legal
    # Select and expand.
    while True:
        untried: list[tuple[int, C]] = []
        best: Node[C] | None = None
        best_key: tuple[int, C] | None = None
        best_value = -math.inf
        for command in legal:
            key = (mover, command)
            child = node.children.get(key)
            if child is None:
                untried.append(key)
                continue
            child.available += 1
            if not untried:
                value = _ucb(child)
                if node is root and key == prior:
                    value += PRIOR_BIAS / (child.visits + 1)
                if value > best_value:
                    best, best_key, best_value = child, key, value
        if untried:
            if node is root and prior is not None and prior not in root.children:
                key = prior
            else:
                key = untried[rng.below(len(untried))]
            child = Node(mover)
            child.available = 1
            node.children[key] = child
            path.append(child)
            s = game.step(s, mover, key[1])
            break
        assert best is not None and best_key is not None
        node = best
        path.append(node)
        s = game.step(s, mover, best_key[1])
        if game.done(s) is not None:
            break
        mover = _mover(game, s)
        legal = game.legal(s, mover)
    # Roll out.
    result = game.done(s)
    if result is not None:
        reward = rewards(result, len(result.scores), margin)
    else:
        reward = game.playout(s, rng, margin)
    # Back up.
    for visited in path[1:]:
        visited.visits += 1
        visited.total += reward[visited.seat]


def search(
    game: Playout[F, S, C],
    seat: int,
    view: V,
    legal: list[C],
    history: list[E],
    sample: Sampler[V, E, F],
    rng: Rng,
    *,
    iterations: int | None = None,
    clock: Callable[[], float] | None = None,
    budget: float | None = None,
    report: Callable[[int], None] | None = None,
    prior: C | None = None,
) -> C:
    """The command of ``legal`` that SO-ISMCTS visits most, for ``seat`` of the game whose
    playout (``domain.search.playout``: a game's ``playout`` module, or ``generic(game)``) is
    ``game``. It stops after ``iterations``, or once ``clock()`` has advanced ``budget``
    seconds, whichever comes first (at least one iteration runs). A single legal command is
    returned at once. ``report`` (measurements) is told how many iterations ran. ``prior``, one
    of ``legal`` thought good (the greedy bot's choice), is tried first and gets a bias that
    fades with its visits (progressive bias): a short search leaves it only on evidence."""
    if not legal:
        raise ValueError("search needs at least one legal command")
    if prior is not None and prior not in legal:
        raise ValueError("the prior must be one of the legal commands")
    if len(legal) == 1:
        if report is not None:
            report(0)
        return legal[0]
    timed = clock is not None and budget is not None
    if iterations is None and not timed:
        raise ValueError("search needs an iteration cap, or a clock and a budget")
    root: Node[C] = Node(seat)
    done = 0
    now = clock() if timed else 0.0  # type: ignore[misc]
    deadline, start = now + (budget or 0.0), now
    sampling = 0.0  # of the clock's time, spent drawing determinizations
    state = None
    while True:
        # A determinization serves further iterations once drawing them took more than its
        # share of the time (a sampler replays the history: it can cost more than a rollout).
        if state is None or not timed or sampling <= SAMPLE_SHARE * (now - start):
            state = sample(seat, view, history, rng)
            if timed:
                drawn = clock()  # type: ignore[misc]
                sampling += drawn - now
        key = (seat, prior) if prior is not None else None
        _iterate(game, root, seat, legal, game.enter(state), rng, key)
        done += 1
        if iterations is not None and done >= iterations:
            break
        if timed:
            now = clock()  # type: ignore[misc]
            if now >= deadline:
                break
    if report is not None:
        report(done)
    return best_command(root, seat, legal)


def best_command(root: Node[C], seat: int, legal: list[C]) -> C:
    """The most visited of the root's commands; among as many visits, the best mean reward
    (a short search visits many commands once), then the earlier in ``legal``."""
    best, most = legal[0], (-1, 0.0)
    for command in legal:
        child = root.children.get((seat, command))
        score = (child.visits, child.total / child.visits) if child else (0, 0.0)
        if score > most:
            best, most = command, score
    return best


def win_chance(
    game: Playout[F, S, C],
    seat: int,
    view: V,
    command: C,
    history: list[E],
    sample: Sampler[V, E, F],
    rng: Rng,
    *,
    iterations: int,
) -> float:
    """``seat``'s chance of winning by playing ``command`` (one of its legal commands), for the
    post-game review: a search whose root holds that command alone, backing up the win share
    (1 alone, 1/k shared with k winners, 0 for a loss; a rollout cut short ends on the game's
    estimate of it) with no margin, so the rest of the seat's turn and the replies are searched
    too. Two commands searched on generators of the same seed see the same first
    determinizations: their difference reflects the commands more than the draws."""
    if iterations < 1:
        raise ValueError("win_chance needs at least one iteration")
    root: Node[C] = Node(seat)
    for _ in range(iterations):
        state = sample(seat, view, history, rng)
        _iterate(game, root, seat, [command], game.enter(state), rng, None, 0.0)
    child = root.children[(seat, command)]
    return child.total / child.visits
