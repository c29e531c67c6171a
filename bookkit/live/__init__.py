"""Live cells: each page's cell list and its scripts (`sphinx_ext`, `live.js` and its parts, `live.css`),
the kernel server `make live` starts (`server`), and thebe's and MathJax's files copied from
node_modules (`assets`)."""
