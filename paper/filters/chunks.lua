-- chunks.lua: shows the literate program's chunks as a reader navigates them.
--
-- Every code block that the tangler reads ({.c #name} or {.c file=path})
-- gets a header naming it, with links: where it is defined, where it is
-- appended to, and which chunks use it. A line that is only <<name>> is shown
-- as a link to that chunk instead of as code.
--
-- Labels, noweb style: every piece of a chunk (its definition and each
-- appendage) has a label of its own, so that "appended in" lists pieces
-- that a reader can tell apart. The pieces are numbered in the order they
-- appear (⟨clock-ns 12⟩, ⟨registered-architectures 31⟩ ...), the same
-- numbers on the page and in the PDF, so that a reader can name a chunk to
-- someone reading the other one; every link shows the label it points to.
--
-- Folding (HTML). A chunk starts folded when
--
--   * the block has the class "fold":       ```{.c #name .fold}
--   * its chapter's heading, or the heading of the part it is in, has the
--     class "fold":  # The harness {#sec:harness .fold}, or
--                    # Part II: The program {.part .fold}
--   * or it is boilerplate: nothing but a file's opening comment,
--     preprocessor lines that carry no value (#include, include guards,
--     #endif, a #define without a value) and references to other chunks;
--     that is, a file's skeleton, whose content the reader meets in the
--     chunks it names;
--
-- unless the block has the class "open" (```{.c #name .open}), which keeps
-- it open whatever its chapter says. A folded chunk is one click away: its
-- header says how many lines it holds (chunks.js counts them, so the page
-- does not carry it for every chunk), and chunks.js opens it when a link
-- or the address bar jumps into it. A folded chunk carries the
-- class "fold" on its <details>, so that "as written" can restore the folds.
--
-- HTML: each chunk is a <details> element whose id is the chunk's anchor,
-- holding the whole chunk as one <pre>, highlighted by pandoc's own
-- highlighter but written compactly, because code is most of the page's
-- weight: no per-line anchors, and only the token kinds the style sheet
-- colours keep an element, adjacent ones merged, each a short custom
-- element instead of a <span class>: <t-co> comment, <t-kw> keyword,
-- <t-st> string, <t-pp> preprocessor. A
-- reference line is a plain link inside the <pre>. Code blocks that are
-- not chunks are written the same way.
--
-- LaTeX: each chunk is one listing (the ChunkCode environment of
-- paper/latex/preamble.tex, which also defines the macros used here) under a
-- \ChunkHead line, with its <<name>> lines typeset inside the listing at
-- their indentation as \ChunkRef, so the code reads as one block; a chunk's
-- header never ends a page without the first lines of its listing.
--
-- Every anchor is unique, and a <<name>> that no block defines stops the
-- weave (the tangler would refuse it too), so no chunk link can dangle.
--
-- Numbers that lead to their code (values.lua): the families of keys the
-- paper's numbers come from, with the chunk that computes each, arrive in
-- the metadata field ipctax-provenance; a family naming a chunk that no
-- block defines stops the weave. In HTML they become the page's table of
-- provenance, a <script type="application/json" id="provenance">, with the
-- chunks' anchors (paper/web/numbers.js reads it); in LaTeX each number,
-- which carries its chunk's name in the attribute "chunk", becomes a link
-- to the chunk (\IpctaxNum), or in the paper alone (edition.lua), whose
-- program is in the book, a link into book.pdf (\IpctaxBookNum).
--
-- The edition's cut (crossref.lua marks where Part II starts when only the
-- paper is woven, as a Div of class "edition-cut"): chunks after it are in
-- the book only.
--
-- A block of class "provenance" is never a chunk: it holds rows of the
-- table of where each number comes from, which the build gathers from the
-- chapters (the tangler's --provenance). A chapter puts it, with the
-- sentence that says what it is, in a Div of class "provenance". The page
-- leaves the Div out, each number's panel showing its own row; the book
-- sets the rows small.
--
-- The rules for what is a chunk and what is a reference are the tangler's
-- (paper/91-appendix-tangle.md); this filter only reads them.

local is_latex = FORMAT:match("latex") ~= nil
local chunks = {}       -- name -> {root, pieces = {anchor...}, seq = {n...}, users = {...}}
-- The summary's tables by the chunk that writes them: a table is opened by
-- its name as a literal (table_open(s, "NAME", ...) or, for a table made as
-- text first, write_csv_table(s, "NAME", ...)). NAME -> {name, anchor}.
local table_writers = {}
local taken = {}        -- anchor -> true
local sequence = 0      -- pieces so far, in document order (the labels)
local cut_seen = false  -- past the edition's cut: what follows is in the book only
local REF = "^(%s*)<<(.-)>>%s*$"

local function target(block)
  if block.classes:includes("provenance") then return nil end   -- never code (the tangler's rule)
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
  if not chunks[name] then chunks[name] = {pieces = {}, seq = {}, users = {}, lines = {}} end
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
      if #c.pieces == 0 then c.book_only = cut_seen end
      local anchor = new_anchor(name, #c.pieces + 1)
      sequence = sequence + 1
      c.pieces[#c.pieces + 1] = anchor
      c.seq[#c.pieces] = sequence
      for table in b.text:gmatch('table_open%(s, "([%w_]+)"') do
        table_writers[table] = table_writers[table] or {name = name, anchor = anchor}
      end
      for table in b.text:gmatch('write_csv_table%(s, "([%w_]+)"') do
        table_writers[table] = table_writers[table] or {name = name, anchor = anchor}
      end
      local n = 0
      for line in each_line(b.text) do
        n = n + 1
        local _, used = line:match(REF)
        if used then
          local u = chunk(used).users
          u[#u + 1] = {name = name, anchor = anchor, index = #c.pieces}
        end
      end
      c.lines[#c.pieces] = n
    end,
    Div = function(d)
      if d.classes:includes("edition-cut") then cut_seen = true end
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

-- --- Links ----------------------------------------------------------------------

-- A link to piece `index` of chunk `name`: ⟨name 12⟩ (HTML) or ⟨name 12a⟩
-- (LaTeX, the label by page), or only the label when bare.
local function link(name, index, bare)
  local c = chunks[name]
  local anchor = c.pieces[index]
  local n = tostring(c.seq[index])
  if is_latex then
    if bare then return "\\ChunkNum{" .. anchor .. "}{" .. n .. "}" end
    return "\\ChunkLink{" .. latex_escape(name) .. "}{" .. anchor .. "}{" .. n .. "}"
  end
  if bare then return '<a href="#' .. anchor .. '">' .. n .. "</a>" end
  return '<a href="#' .. anchor .. '">⟨' .. html_escape(name) .. " <small>" .. n .. "</small>⟩</a>"
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
    parts[#parts + 1] = links("defined in", {link(name, 1, true)})
    if #c.pieces > 2 then
      local others = {}
      for i = 2, #c.pieces do
        if i ~= index then others[#others + 1] = link(name, i, true) end
      end
      parts[#parts + 1] = links("also appended in", others)
    end
  elseif #c.pieces > 1 then
    local more = {}
    for i = 2, #c.pieces do more[#more + 1] = link(name, i, true) end
    parts[#parts + 1] = links("appended in", more)
  end
  local users, seen = {}, {}
  for _, u in ipairs(c.users) do
    if not seen[u.anchor] then
      seen[u.anchor] = true
      users[#users + 1] = link(u.name, u.index)
    end
  end
  parts[#parts + 1] = links("used in", users)
  return table.concat(parts, "; ")
end

-- The header line: name and label, ≡ or +≡, and the navigation.
local function header(name, index)
  local c = chunks[name]
  local nav = navigation(name, index)
  local anchor = c.pieces[index]
  if is_latex then
    return "\\ChunkHead{" .. anchor .. "}{" .. latex_escape(name) .. "}{"
      .. (index > 1 and "+\\!\\equiv" or "\\equiv") .. "}{" .. nav .. "}{" .. c.seq[index] .. "}"
  end
  local op = index > 1 and "+≡" or "≡"
  return '<a class="chunk-name" href="#' .. anchor .. '">⟨' .. html_escape(name)
    .. " <small>" .. c.seq[index] .. "</small>⟩</a> " .. op
    .. (nav ~= "" and (' <span class="chunk-nav">' .. nav .. "</span>") or "")
end

-- --- HTML code --------------------------------------------------------------------

-- The token kinds that keep a span, and the class each is written with;
-- every other token (operators, names, types, numbers ...) is plain text.
-- Types and numbers were coloured too, once; they were a third of the
-- page's markup, and a reader tells `size_t` or `64` from the names
-- around them without a colour.
local KEEP = {co = "co", al = "co", wa = "co", cv = "co", an = "co",["do"] = "co",["in"] = "co",
              kw = "kw", cf = "kw", im = "pp", pp = "pp",
              st = "st", ch = "st", vs = "st", ss = "st", sc = "st"}

-- One line of pandoc's highlighted HTML as segments {kind, text}: kind is
-- the class written (KEEP) or nil for plain text.
local function line_segments(line, segs)
  local pos = 1
  while true do
    local s, e, kind, text = line:find('<span class="(%w+)">(.-)</span>', pos)
    if not s then break end
    if s > pos then segs[#segs + 1] = {text = line:sub(pos, s - 1)} end
    segs[#segs + 1] = {kind = KEEP[kind], text = text}
    pos = e + 1
  end
  if pos <= #line then segs[#segs + 1] = {text = line:sub(pos)} end
end

-- Escaped text as element content needs only < and & escaped: quotes and
-- > are written as themselves (code has thousands; each entity is three
-- to five bytes more than its character).
local function text_content(escaped)
  return (escaped:gsub("&quot;", '"'):gsub("&#39;", "'"):gsub("&gt;", ">"))
end

-- Segments into HTML, merging those of one kind that touch or that only
-- white space (a line break, an indentation) separates: a comment of ten
-- lines is one span. Segments of kind "raw" are written as they are.
local function write_segments(segs)
  local merged = {}
  for i, seg in ipairs(segs) do
    local prev = merged[#merged]
    if prev and prev.kind and prev.kind ~= "raw" and prev.kind == seg.kind then
      prev.text = prev.text .. seg.text
    elseif prev and prev.kind and prev.kind ~= "raw" and seg.kind == nil
           and seg.text:match("^%s+$") then
      -- white space: joins the span if the next token that is not white
      -- space is of the same kind
      local j = i + 1
      while segs[j] and segs[j].kind == nil and segs[j].text:match("^%s+$") do j = j + 1 end
      if segs[j] and segs[j].kind == prev.kind then prev.text = prev.text .. seg.text
      else merged[#merged + 1] = {text = seg.text} end
    else
      merged[#merged + 1] = {kind = seg.kind, text = seg.text}
    end
  end
  local html = {}
  for _, seg in ipairs(merged) do
    if seg.kind == "raw" then
      html[#html + 1] = seg.text
    elseif seg.kind then
      html[#html + 1] = "<t-" .. seg.kind .. ">" .. text_content(seg.text) .. "</t-" .. seg.kind .. ">"
    else
      html[#html + 1] = text_content(seg.text)
    end
  end
  return table.concat(html)
end

-- Each line's indentation, four spaces at a time, as tabs (the style sheet
-- shows a tab four columns wide, and chunks.js copies it back as four
-- spaces): indentation is a tenth of the page's code.
local function tabbed(html)
  return (("\n" .. html):gsub("\n(    +)", function(run)
    return "\n" .. string.rep("\t", #run // 4) .. string.rep(" ", #run % 4)
  end):sub(2))
end

-- pandoc's highlighted HTML for one block, as its lines without pandoc's
-- per-line anchors (nil when the language has no highlighter).
local function highlighted_lines(text, classes)
  local html = pandoc.write(pandoc.Pandoc({pandoc.CodeBlock(text, pandoc.Attr("", classes))}),
                            "html")
  local body = html:match('<code class="sourceCode[^"]*">(.*)</code></pre>')
  if not body then return nil end
  local out = {}
  for line in each_line(body) do
    line = line:gsub('^<span id="cb%d+%-%d+"><a href="#cb%d+%-%d+" aria%-hidden="true" '
                     .. 'tabindex="%-1"></a>', "", 1)
    out[#out + 1] = (line:gsub("</span>$", "", 1))
  end
  return out
end

-- The lines of a block as HTML: highlighted where pandoc can, escaped
-- otherwise; reference lines become links to the chunk they name.
local function html_code(block, with_refs)
  local lines = highlighted_lines(block.text, block.classes)
  local segs, n = {}, 0
  for line in each_line(block.text) do
    n = n + 1
    if n > 1 then segs[#segs + 1] = {text = "\n"} end
    local indent, name = nil, nil
    if with_refs then indent, name = line:match(REF) end
    if name then
      segs[#segs + 1] = {kind = "raw", text = indent .. link(name, 1)}
    elseif lines and lines[n] then
      line_segments(lines[n], segs)
    else
      segs[#segs + 1] = {text = html_escape(line)}
    end
  end
  local lang = block.classes[1] and (' class="' .. html_escape(block.classes[1]) .. '"') or ""
  return "<pre" .. lang .. "><code>" .. tabbed(write_segments(segs)) .. "</code></pre>"
end

-- --- Folding ------------------------------------------------------------------------

local GUARD = {"^#%s*include%s", "^#%s*ifndef%s+[%w_]+%s*$", "^#%s*ifdef%s+[%w_]+%s*$",
               "^#%s*if%s", "^#%s*else", "^#%s*elif%s", "^#%s*endif", "^#%s*pragma%s",
               "^#%s*define%s+[%w_]+%s*$"}

-- A file's skeleton: only comments, blank lines, value-less preprocessor
-- lines and references to other chunks.
local function is_boilerplate(block)
  if not block.classes:includes("c") then return false end
  local in_comment, any = false, false
  for line in each_line(block.text) do
    local t = line:match("^%s*(.-)%s*$")
    if in_comment then
      if t:find("*/", 1, true) then
        in_comment = false
        if not t:match("%*/$") then return false end
      end
    elseif t == "" or t:match(REF) or t:match("^//") then
      any = any or t ~= ""
    elseif t:match("^/%*") then
      any = true
      if not t:find("*/", 3, true) then in_comment = true
      elseif not t:match("%*/$") then return false end
    else
      local ok = false
      for _, p in ipairs(GUARD) do if t:match(p) then ok = true break end end
      if not ok then return false end
      any = true
    end
  end
  return any
end

-- --- LaTeX listings -------------------------------------------------------------------

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
        .. chunks[name].pieces[1] .. "}{" .. chunks[name].seq[1] .. "}}"
      out[#out + 1] = indent .. macro
    else
      run[#run + 1] = line
    end
  end
  flush()
  return table.concat(defs, "\n") .. (#defs > 0 and "\n" or "")
    .. "\\begin{ChunkCode}\n" .. table.concat(out, "\n") .. "\n\\end{ChunkCode}"
end

-- --- Rendering --------------------------------------------------------------------------

local seen_pieces = {}

local function render(block, folded_here)
  local name = target(block)
  if not name then
    if is_latex then return nil end
    return pandoc.RawBlock("html", html_code(block, false))
  end
  seen_pieces[name] = (seen_pieces[name] or 0) + 1
  local index = seen_pieces[name]
  local anchor = chunks[name].pieces[index]
  if is_latex then
    local need = math.min(chunks[name].lines[index], 4)
    return pandoc.RawBlock("latex", "\\ChunkNeed{" .. need .. "}\n" .. header(name, index)
      .. "\n" .. latex_listing(block))
  end
  local folded = not block.classes:includes("open")
    and (block.classes:includes("fold") or folded_here or is_boilerplate(block))
  return pandoc.RawBlock("html", '<details class="chunk' .. (folded and " fold" or "")
    .. '" id="' .. anchor .. '"' .. (folded and "" or " open") .. "><summary>"
    .. header(name, index) .. "</summary>" .. html_code(block, true) .. "</details>")
end

-- A chapter's provenance block: rows of the table of where each number
-- comes from, which the build gathers (paper/90-appendix-report.md,
-- "Where each number comes from"). The page leaves them out, and the Div
-- of class "provenance" that holds them and their sentence, since each
-- number's panel shows its family's row and the page has a budget of
-- weight; the book sets them small, a paragraph to a row whose later
-- lines hang (ProvenanceRows, paper/latex/preamble.tex).
local function provenance_rows(block)
  if not is_latex then return {} end
  local rows = {pandoc.RawBlock("latex", "\\begin{ProvenanceRows}")}
  for line in each_line(block.text) do
    if line ~= "" then rows[#rows + 1] = pandoc.Para({pandoc.Code(line)}) end
  end
  rows[#rows + 1] = pandoc.RawBlock("latex", "\\end{ProvenanceRows}")
  return rows
end

-- Walks the blocks in order, knowing whether the current part or chapter
-- asks for its chunks to be folded.
local function render_all(blocks)
  local part_fold, chapter_fold = false, false
  local function walk(list)
    local out = pandoc.List()
    for _, b in ipairs(list) do
      if b.t == "Header" and b.level == 1 then
        if b.classes:includes("part") then
          part_fold = b.classes:includes("fold")
          chapter_fold = false
        else
          chapter_fold = b.classes:includes("fold")
        end
        out:insert(b)
      elseif b.t == "CodeBlock" and b.classes:includes("provenance") then
        out:extend(provenance_rows(b))
      elseif b.t == "Div" and b.classes:includes("provenance") and not is_latex then
        -- left out of the page, with the sentence that introduces its rows
      elseif b.t == "CodeBlock" then
        out:insert(render(b, part_fold or chapter_fold) or b)
      elseif b.t == "Div" or b.t == "BlockQuote" then
        b.content = walk(b.content)
        out:insert(b)
      else
        out:insert(pandoc.walk_block(b, {CodeBlock = function(cb)
          if cb.classes:includes("provenance") then return provenance_rows(cb) end
          return render(cb, part_fold or chapter_fold)
        end}))
      end
    end
    return out
  end
  return walk(blocks)
end

-- --- Numbers that lead to their chunk ----------------------------------------------

local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(ch)
    if ch == '"' then return '\\"' end
    if ch == "\\" then return "\\\\" end
    return string.format("\\u%04x", string.byte(ch))
  end):gsub("</", "<\\/") .. '"'
end

local function json(v)
  if type(v) == "string" then return json_string(v) end
  if type(v) == "number" then return tostring(v) end
  local parts = {}
  if v[1] ~= nil or next(v) == nil then
    for _, x in ipairs(v) do parts[#parts + 1] = json(x) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do parts[#parts + 1] = json_string(k) .. ":" .. json(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end

local function meta_text(m)
  return m and pandoc.utils.stringify(m) or ""
end

-- The families values.lua found, with their chunks resolved: nil and a
-- list of the families whose chunk no block defines when there are any.
-- The page's table, written once per text: an estimator or a source (a
-- file and its columns) that several families share is listed once and
-- named by its index.
local function provenance(meta)
  local out = {values = "values.csv", estimators = {}, sources = {}, families = {}}
  local unknown, index = {}, {}
  local function intern(list, value, id)
    if index[id] == nil then list[#list + 1] = value; index[id] = #list - 1 end
    return index[id]
  end
  for _, m in ipairs(meta["ipctax-provenance"] or {}) do
    local name = meta_text(m.chunk)
    local c = chunks[name]
    if not c or #c.pieces == 0 then
      unknown[#unknown + 1] = meta_text(m.key) .. " names the chunk <<" .. name .. ">>"
    else
      local est = meta_text(m.estimator)
      local sources = {}
      for _, f in ipairs(m.from or {}) do
        local cols = {}
        for _, col in ipairs(f.columns or {}) do cols[#cols + 1] = meta_text(col) end
        local file = meta_text(f.file)
        sources[#sources + 1] = intern(out.sources, {file, cols},
                                       "source " .. file .. ": " .. table.concat(cols, " "))
      end
      local n, unit = meta_text(m.n), meta_text(m.unit)
      out.families[#out.families + 1] = {k = meta_text(m.key), u = unit ~= "" and unit or nil,
        e = intern(out.estimators, est, "estimator " .. est), n = n ~= "" and n or nil,
        s = sources, c = c.pieces[1]}
    end
  end
  return out, unknown
end

-- LaTeX: a number (a Span or Code with the attribute "chunk") as a link to
-- its chunk; in HTML the page's script finds the chunk by the number's key.
local function number_link(el)
  local name = el.attributes and el.attributes["chunk"]
  if not name then return nil end
  el.attributes["chunk"] = nil
  local c = chunks[name]
  if not is_latex or not c or #c.pieces == 0 then return el end
  local macro = c.book_only and "\\IpctaxBookNum" or "\\IpctaxNum"
  local open = pandoc.RawInline("latex", macro .. "{" .. c.pieces[1] .. "}{")
  local close = pandoc.RawInline("latex", "}")
  if el.t == "Code" then return {open, el, close} end
  local out = pandoc.List({open})
  out:extend(el.content)
  out:insert(close)
  return out
end

-- A link to a piece of a chunk from outside the code (index.lua's index):
-- a Span of class "chunk-ref", name= and piece= (1 the definition, 2 ...
-- its appendages), bare="1" for the label alone. One that names no piece
-- stops the weave, like a <<name>> no block defines.
local function chunk_ref(el)
  if not el.classes:includes("chunk-ref") then return nil end
  local name, index = el.attributes["name"], tonumber(el.attributes["piece"] or "1")
  local c = chunks[name]
  if not c or not c.pieces[index] then
    error("chunks.lua: a link to piece " .. tostring(index) .. " of <<" .. tostring(name)
          .. ">>, which no block defines")
  end
  return pandoc.RawInline(is_latex and "latex" or "html", link(name, index, el.attributes["bare"] == "1"))
end

-- A table's caption on the page ends with the chunk that writes it
-- (values.lua leaves the mark, with the table's name): nothing if no chunk
-- opens a table of that name.
local function table_source(el)
  if not el.classes:includes("table-source") then return nil end
  local w = table_writers[el.attributes["data-table"] or ""]
  if not w then return {} end
  return {pandoc.Str(";"), pandoc.Space(), pandoc.Str("made"), pandoc.Space(), pandoc.Str("by"),
          pandoc.Space(), pandoc.Link({pandoc.Str("\u{27E8}" .. w.name .. "\u{27E9}")},
                                      "#" .. w.anchor, "", pandoc.Attr("", {"chunk-ref"}))}
end

local function Pandoc(doc)
  collect(doc.blocks)
  local table_of_provenance, unknown = provenance(doc.meta)
  if #unknown > 0 then
    error("chunks.lua: a family of values names a chunk that no block defines: "
          .. table.concat(unknown, "; ")
          .. " (paper/provenance.csv or a chapter's provenance block)")
  end
  doc.meta["ipctax-provenance"] = nil
  local blocks = pandoc.walk_block(pandoc.Div(doc.blocks), {Span = function(el)
    return chunk_ref(el) or table_source(el) or number_link(el)
  end, Code = number_link}).content
  blocks = render_all(blocks)
  if not is_latex and #table_of_provenance.families > 0 then
    blocks:insert(pandoc.RawBlock("html", '<script type="application/json" id="provenance">'
      .. json(table_of_provenance) .. "</script>"))
  end
  return pandoc.Pandoc(blocks, doc.meta)
end

return {{Pandoc = Pandoc}}
