-- chunks.lua: shows the literate program's chunks as a reader navigates them.
--
-- Every code block that the tangler reads ({.c #name} or {.c file=path})
-- gets a header naming it, with links: where it is defined, where it is
-- appended to, and which chunks use it. A line that is only <<name>> is shown
-- as a link to that chunk instead of as code.
--
-- HTML: each chunk is a <details> element whose id is the chunk's anchor,
-- open unless the block has the class "fold"; a folded chunk says how many
-- lines it holds. paper/web/chunks.js opens a folded chunk when a link or
-- the address bar jumps into it.
--
-- LaTeX: each chunk is one listing (the ChunkCode environment of
-- paper/latex/preamble.tex, which also defines the macros used here) under a
-- \ChunkHead line, with its <<name>>
-- lines typeset inside the listing at their indentation as \ChunkRef, so the
-- code reads as one block; every link carries the page it points to.
--
-- Every anchor is unique, and a <<name>> that no block defines stops the
-- weave (the tangler would refuse it too), so no chunk link can dangle.
--
-- The rules for what is a chunk and what is a reference are the tangler's
-- (paper/90-appendix-tangle.md); this filter only reads them.

local is_latex = FORMAT:match("latex") ~= nil
local chunks = {}       -- name -> {root, pieces = {anchor...}, users = {{name, anchor}...}}
local taken = {}        -- anchor -> true
local REF = "^(%s*)<<(.-)>>%s*$"

local function target(block)
  if block.attributes["file"] then return block.attributes["file"], true end
  if block.identifier ~= "" then return block.identifier, false end
  return nil
end

local function slug(name)
  return "chunk-" .. name:gsub("[^%w%-]", "-")
end

-- A fresh anchor: chunk-NAME for the first piece, chunk-NAME-2 ... for the
-- pieces appended later, with a further suffix if another name already
-- took it (a.b and a-b have the same slug).
local function new_anchor(name, index)
  local base = slug(name) .. (index > 1 and ("-" .. index) or "")
  local anchor, n = base, 1
  while taken[anchor] do
    n = n + 1
    anchor = base .. "_" .. n
  end
  taken[anchor] = true
  return anchor
end

local function chunk(name)
  if not chunks[name] then chunks[name] = {pieces = {}, users = {}, lines = {}} end
  return chunks[name]
end

local function each_line(text)
  return (text .. "\n"):gmatch("(.-)\n")
end

-- First pass: every chunk's pieces (with anchors) and every use of a chunk.
local function collect(blocks)
  pandoc.walk_block(pandoc.Div(blocks), {
    CodeBlock = function(b)
      local name, root = target(b)
      if not name then return nil end
      local c = chunk(name)
      c.root = root
      local anchor = new_anchor(name, #c.pieces + 1)
      c.pieces[#c.pieces + 1] = anchor
      local n = 0
      for line in each_line(b.text) do
        n = n + 1
        local _, used = line:match(REF)
        if used then
          local u = chunk(used).users
          u[#u + 1] = {name = name, anchor = anchor}
        end
      end
      c.lines[#c.pieces] = n
    end,
  })
  local undefined = {}
  for name, c in pairs(chunks) do
    if #c.pieces == 0 then
      local where = {}
      for _, u in ipairs(c.users) do where[#where + 1] = u.name end
      undefined[#undefined + 1] = "<<" .. name .. ">> (used in " .. table.concat(where, ", ") .. ")"
    end
  end
  if #undefined > 0 then
    table.sort(undefined)
    error("chunks.lua: chunks used but never defined: " .. table.concat(undefined, "; "))
  end
end

local function html_escape(s)
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

local function latex_escape(s)
  return (s:gsub("[\\{}_&%%$#^~]", function(ch)
    if ch == "\\" then return "\\textbackslash{}" end
    if ch == "~" then return "\\textasciitilde{}" end
    if ch == "^" then return "\\textasciicircum{}" end
    return "\\" .. ch
  end))
end

local function link(name, anchor)
  if is_latex then
    return "\\ChunkLink{" .. latex_escape(name) .. "}{" .. anchor .. "}"
  end
  return '<a class="chunk-link" href="#' .. anchor .. '">⟨' .. html_escape(name) .. "⟩</a>"
end

local function links(label, list)
  if #list == 0 then return nil end
  return label .. " " .. table.concat(list, ", ")
end

-- The navigation of a header: defined in / appended in / used in.
local function navigation(name, index)
  local c = chunks[name]
  local parts = {}
  if index > 1 then
    parts[#parts + 1] = links("defined in", {link(name, c.pieces[1])})
  elseif #c.pieces > 1 then
    local more = {}
    for i = 2, #c.pieces do more[#more + 1] = link(name, c.pieces[i]) end
    parts[#parts + 1] = links("appended in", more)
  end
  local users, seen = {}, {}
  for _, u in ipairs(c.users) do
    if not seen[u.anchor] then
      seen[u.anchor] = true
      users[#users + 1] = link(u.name, u.anchor)
    end
  end
  parts[#parts + 1] = links("used in", users)
  return table.concat(parts, "; ")
end

-- The header line: name, ≡ or +≡, and the navigation.
local function header(name, index)
  local c = chunks[name]
  local nav = navigation(name, index)
  local anchor = c.pieces[index]
  if is_latex then
    return "\\ChunkHead{" .. anchor .. "}{" .. latex_escape(name) .. "}{"
      .. (index > 1 and "+\\!\\equiv" or "\\equiv") .. "}{" .. nav .. "}"
  end
  local op = index > 1 and "+≡" or "≡"
  local n = c.lines[index]
  return '<span class="chunk-name"><a href="#' .. anchor .. '">⟨' .. html_escape(name)
    .. '⟩</a></span> <span class="chunk-op">' .. op .. "</span>"
    .. (nav ~= "" and (' <span class="chunk-nav">' .. nav .. "</span>") or "")
    .. ' <span class="chunk-lines">' .. n .. (n == 1 and " line" or " lines") .. "</span>"
end

-- HTML: a <<name>> line, shown as a link with the line's indentation kept.
local function reference_line(indent, name)
  return pandoc.RawBlock("html", '<pre class="chunk-ref"><code>' .. indent
    .. link(name, chunks[name].pieces[1]) .. "</code></pre>")
end

-- HTML: the code of a chunk, cut at its reference lines.
local function segments(block)
  local out, run = {}, {}
  local function flush()
    if #run > 0 then
      out[#out + 1] = pandoc.CodeBlock(table.concat(run, "\n"), pandoc.Attr("", block.classes))
      run = {}
    end
  end
  for line in each_line(block.text) do
    local indent, name = line:match(REF)
    if name then
      flush()
      out[#out + 1] = reference_line(indent, name)
    else
      run[#run + 1] = line
    end
  end
  flush()
  return out
end

-- LaTeX: the lines of a run of code, highlighted by pandoc's own writer and
-- ready for a Verbatim environment whose command characters are \ { }.
local function latex_lines(lines, classes)
  local cb = pandoc.CodeBlock(table.concat(lines, "\n"), pandoc.Attr("", classes))
  local tex = pandoc.write(pandoc.Pandoc({cb}), "latex")
  local body = tex:match("\\begin{Highlighting}%[%]\n(.-)\n?\\end{Highlighting}")
  if body then return body end
  local out = {}     -- no highlighter for this language: escape the three
  for _, line in ipairs(lines) do
    out[#out + 1] = line:gsub("[\\{}]", function(ch)
      return ch == "\\" and "\\textbackslash{}" or ("\\" .. ch)
    end)
  end
  return table.concat(out, "\n")
end

-- LaTeX: a macro name for the n-th reference line of a listing (A, B, ...).
local function ref_macro(n)
  local s = ""
  repeat
    local r = (n - 1) % 26
    s = string.char(65 + r) .. s
    n = (n - 1 - r) // 26
  until n == 0
  return "\\ChunkRef" .. s
end

-- LaTeX: the whole chunk as one listing, reference lines inside it. Inside
-- Verbatim, "-" and "," are active characters that would break a label, so
-- each reference line is a macro without arguments, defined before the
-- listing.
local function latex_listing(block)
  local out, run, defs = {}, {}, {}
  local function flush()
    if #run > 0 then
      out[#out + 1] = latex_lines(run, block.classes)
      run = {}
    end
  end
  for line in each_line(block.text) do
    local indent, name = line:match(REF)
    if name then
      flush()
      local macro = ref_macro(#defs + 1)
      defs[#defs + 1] = "\\def" .. macro .. "{\\ChunkRef{" .. latex_escape(name) .. "}{"
        .. chunks[name].pieces[1] .. "}}"
      out[#out + 1] = indent .. macro
    else
      run[#run + 1] = line
    end
  end
  flush()
  return table.concat(defs, "\n") .. (#defs > 0 and "\n" or "")
    .. "\\begin{ChunkCode}\n" .. table.concat(out, "\n") .. "\n\\end{ChunkCode}"
end

local seen_pieces = {}

local function render(block)
  local name = target(block)
  if not name then return nil end
  seen_pieces[name] = (seen_pieces[name] or 0) + 1
  local index = seen_pieces[name]
  local anchor = chunks[name].pieces[index]
  if is_latex then
    return pandoc.RawBlock("latex", header(name, index) .. "\n" .. latex_listing(block))
  end
  local blocks = pandoc.List()
  local folded = block.classes:includes("fold")
  blocks:insert(pandoc.RawBlock("html", '<details class="chunk' .. (folded and " fold" or "")
    .. '" id="' .. anchor .. '"' .. (folded and "" or " open") .. "><summary>"
    .. header(name, index) .. "</summary>"))
  blocks:extend(segments(block))
  blocks:insert(pandoc.RawBlock("html", "</details>"))
  return pandoc.Div(blocks, pandoc.Attr("", {"chunk-wrap"}))
end

local function Pandoc(doc)
  collect(doc.blocks)
  local blocks = pandoc.walk_block(pandoc.Div(doc.blocks), {CodeBlock = render}).content
  return pandoc.Pandoc(blocks, doc.meta)
end

return {{Pandoc = Pandoc}}
