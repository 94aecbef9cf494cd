// The vacation page: the running vacation and the days left this year (GET /me/vacation),
// start one for a number of days (POST), end it early (DELETE).
"use strict";

(() => {
  const { t, tn, api, showError, when } = Omerta;
  const form = document.getElementById("vacation-form");
  const endButton = document.getElementById("vacation-end");

  function show(state) {
    const on = state.current !== null;
    document.getElementById("vacation-state").replaceChildren(...(on
      ? tn("vacation.on", { when: when(state.current.end) }) : [t("vacation.none")]));
    document.getElementById("vacation-left").textContent =
      t("vacation.left", { year: state.year, n: state.days_left });
    form.hidden = on || state.days_left < 1;
    endButton.hidden = !on;
    const days = document.getElementById("vacation-days");
    days.max = String(Math.max(1, state.days_left));
    if (Number(days.value) > state.days_left) days.value = String(Math.max(1, state.days_left));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      show(await api("POST", "/me/vacation",
        { days: Number(document.getElementById("vacation-days").value) }));
      endButton.focus();
    } catch (err) {
      showError(err);
    }
  });

  endButton.addEventListener("click", async () => {
    try {
      show(await api("DELETE", "/me/vacation"));
      document.getElementById("vacation-days").focus();
    } catch (err) {
      showError(err);
    }
  });

  (async () => {
    try {
      if (!(await Omerta.me())) { document.getElementById("vacation-none").hidden = false; return; }
      show(await api("GET", "/me/vacation"));
      document.getElementById("vacation-panel").hidden = false;
    } catch (err) {
      showError(err);
    }
  })();
})();
