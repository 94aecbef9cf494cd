"""The operations on a player's clocks: vacations."""

from __future__ import annotations

from api.openapi.route import Route
from api.routes import clocks

VACATION_ABOUT = (
    "While the caller is on vacation no clock of theirs runs: the deadlines of their seats "
    "are pushed back by the vacation (GET /games/{id} shows them), and a deadline job that "
    "fires meanwhile arms itself again instead of timing the seat out. The days a year are a "
    "setting (OMERTA_VACATION_DAYS), counted by the year a vacation starts in, each counting "
    "its days begun."
)

CLOCK_ROUTES: tuple[Route, ...] = (
    Route(
        "get",
        "/me/vacation",
        "The caller's vacations: the running one, the days left this year",
        (200, clocks.VacationOut),
        auth="required",
        codes=("store_unavailable",),
        tag="clocks",
        description=VACATION_ABOUT,
    ),
    Route(
        "post",
        "/me/vacation",
        "Start a vacation now, for a number of days or until a date",
        (200, clocks.VacationOut),
        body=clocks.NewVacation,
        auth="required",
        codes=("bad_vacation", "rate_limited", "store_unavailable", "vacation_refused"),
        tag="clocks",
        description=VACATION_ABOUT + " A vacation while one runs, or longer than the days "
        "left, is refused (409 vacation_refused).",
    ),
    Route(
        "delete",
        "/me/vacation",
        "End the running vacation now (the days not begun are given back)",
        (200, clocks.VacationOut),
        auth="required",
        codes=("rate_limited", "store_unavailable"),
        tag="clocks",
    ),
)
