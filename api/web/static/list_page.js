// A page that is one list (the lobby, the inbox): which one, the page's body says (a file, not
// an inline script: the Content-Security-Policy allows no inline script).
"use strict";

Lists.page(document.body.dataset.list);
