// Cards drawn from their data with CSS and small SVG glyphs (no artwork of the published games).
// Each game's own cards are drawn by its card script, which adds its functions to Cards and its
// glyphs with Cards.addGlyphs.
"use strict";

const Cards = (() => {
  const DATA = JSON.parse(document.getElementById("cards").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  // Simple glyphs on a 24x24 grid, by name: the games' (a family, a skill...).
  const GLYPHS = {};

  function addGlyphs(paths) {
    Object.assign(GLYPHS, paths);
  }

  function glyph(kind, label) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("class", "glyph glyph-" + kind);
    svg.setAttribute("fill-rule", "evenodd");
    if (label) {
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", label);
      const title = document.createElementNS(SVG, "title");
      title.textContent = label;
      svg.append(title);
    } else {
      svg.setAttribute("aria-hidden", "true");
    }
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", GLYPHS[kind]);
    svg.append(path);
    return svg;
  }

  return { DATA, glyph, addGlyphs };
})();
