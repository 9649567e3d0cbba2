-- chunks.lua: shows the literate program's chunks as a reader navigates them.
--
-- Every code block that the tangler reads ({.c #name} or {.c file=path})
-- gets a header naming it, with links: where it is defined, where it is
-- appended to, and which chunks use it. A line that is only <<name>> is shown
-- as a link to that chunk instead of as code. In HTML each chunk is a
-- <details> element, open unless the block has the class "fold"; in LaTeX the
-- links carry page numbers.
--
-- The rules for what is a chunk and what is a reference are the tangler's
-- (paper/90-appendix-tangle.md); this filter only reads them.

local is_latex = FORMAT:match("latex") ~= nil
local chunks = {}       -- name -> {root, pieces = {anchor...}, users = {{name, anchor}...}}
local REF = "^(%s*)<<(.-)>>%s*$"

local function target(block)
  if block.attributes["file"] then return block.attributes["file"], true end
  if block.identifier ~= "" then return block.identifier, false end
  return nil
end

local function slug(name)
  return "chunk-" .. name:gsub("[^%w%-]", "-")
end

local function chunk(name)
  if not chunks[name] then chunks[name] = {pieces = {}, users = {}} end
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
      local anchor = slug(name) .. (#c.pieces > 0 and ("-" .. (#c.pieces + 1)) or "")
      c.pieces[#c.pieces + 1] = anchor
      for line in each_line(b.text) do
        local _, used = line:match(REF)
        if used then
          local u = chunk(used).users
          u[#u + 1] = {name = name, anchor = anchor}
        end
      end
    end,
  })
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
    return "$\\langle$\\textit{" .. latex_escape(name) .. "}$\\rangle$~p.\\,\\pageref{"
      .. anchor .. "}"
  end
  return '<a class="chunk-link" href="#' .. anchor .. '">⟨' .. html_escape(name) .. "⟩</a>"
end

local function links(label, list)
  if #list == 0 then return nil end
  return label .. " " .. table.concat(list, ", ")
end

-- The header line: name, ≡ or +≡, and the navigation.
local function header(name, index)
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
  local nav = table.concat(parts, "; ")
  local anchor = c.pieces[index]
  local op = index > 1 and "+≡" or "≡"
  if is_latex then
    return "\\par\\noindent\\phantomsection\\label{" .. anchor .. "}"
      .. "{\\small$\\langle$\\textit{" .. latex_escape(name) .. "}$\\rangle$"
      .. (index > 1 and "$+\\!\\!\\equiv$" or "$\\equiv$") .. "}"
      .. (nav ~= "" and ("\\hfill{\\scriptsize " .. nav .. "}") or "")
      .. "\\par\\nopagebreak"
  end
  return '<span class="chunk-name"><a href="#' .. anchor .. '">⟨' .. html_escape(name)
    .. '⟩</a></span> <span class="chunk-op">' .. op .. "</span>"
    .. (nav ~= "" and (' <span class="chunk-nav">' .. nav .. "</span>") or "")
end

-- A <<name>> line, shown as a link with the line's indentation kept.
local function reference_line(indent, name)
  local anchor = chunks[name] and chunks[name].pieces[1] or slug(name)
  if is_latex then
    return pandoc.RawBlock("latex", "\\par\\noindent{\\footnotesize\\texttt{\\phantom{"
      .. string.rep("x", #indent) .. "}}}" .. link(name, anchor) .. "\\par")
  end
  return pandoc.RawBlock("html", '<pre class="chunk-ref"><code>' .. indent
    .. link(name, anchor) .. "</code></pre>")
end

-- The code of a chunk, cut at its reference lines.
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

local seen_pieces = {}

local function render(block)
  local name = target(block)
  if not name then return nil end
  seen_pieces[name] = (seen_pieces[name] or 0) + 1
  local index = seen_pieces[name]
  local anchor = chunks[name].pieces[index]
  local body = segments(block)
  local blocks = pandoc.List()
  if is_latex then
    blocks:insert(pandoc.RawBlock("latex", header(name, index)))
    blocks:extend(body)
    return pandoc.Div(blocks, pandoc.Attr("", {"chunk"}))
  end
  local open = block.classes:includes("fold") and "" or " open"
  blocks:insert(pandoc.RawBlock("html", '<details class="chunk" id="' .. anchor .. '"' .. open
    .. "><summary>" .. header(name, index) .. "</summary>"))
  blocks:extend(body)
  blocks:insert(pandoc.RawBlock("html", "</details>"))
  return pandoc.Div(blocks, pandoc.Attr("", {"chunk-wrap"}))
end

local function Pandoc(doc)
  collect(doc.blocks)
  local blocks = pandoc.walk_block(pandoc.Div(doc.blocks), {CodeBlock = render}).content
  return pandoc.Pandoc(blocks, doc.meta)
end

return {{Pandoc = Pandoc}}
