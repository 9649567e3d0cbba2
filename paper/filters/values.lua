-- values.lua: puts measured numbers and tables into the paper.
--
-- [key]{.num}          -> the value ipctax-summary wrote for key
-- [key]{.num .code}    -> the value as inline code (flags, a command): no
--                         minus sign, printed verbatim
-- [key]{.num .ci}     -> an estimate with its 95% interval, from key, key.low
--                         and key.high: "1.005 [0.950, 1.043]"; the three
--                         must exist, as for any placeholder
-- [key]{.num .article} -> the value after its indefinite article: "an AMD
--                         EPYC", "a Xeon", "an 8-core", "an 11,000"; .Article
--                         capitalises it ("An AMD EPYC") to start a sentence
-- ::: {.datatable #tbl:x src=name}  -> the table in tables/name.csv, with the
--   caption ...caption... :::          div's text as its caption; on the page
--                                      the caption ends with the table's data
--                                      (tables/name.csv, which the weave
--                                      publishes beside the page) and the
--                                      chunk that writes it (chunks.lua finds
--                                      it by the table's name)
-- ::: {.datatable .verdict-strip ...} -> the same, a table of verdicts: each
--                                      cell a letter (H, F, U) on its
--                                      verdict's colour, the word as its
--                                      title; the claims' names, the header,
--                                      set upright
-- ::: {.if-reduced} ... :::         -> kept only when the run was reduced
--
-- Choosing words by value: a div (or a span) with the class "when" keeps its
-- content only when the value of key K is one of the listed ones:
--
--   ::: {.when key=claim.batch.verdict is=holds}
--   The batch crossing costs [claim.batch.value]{.num}% ...
--   :::
--   ::: {.when key=claim.batch.verdict is="fails|undecided"} ... :::
--   [resolved]{.when key=cross.gap.resolved is=yes}
--   ::: {.when key=claim.batch.verdict not=holds} ... :::
--
-- is="a|b" keeps the content when the value is a or b; not="a|b" keeps it
-- when the value is neither; both may be given (both must hold). A .when
-- without is= or not=, or with a key that values.csv lacks, stops the build
-- like a missing placeholder. Placeholders inside are filled as anywhere
-- else, and are checked even in the branch that is dropped, so a misspelt
-- key cannot wait for the run whose verdict would show it; the one
-- exception is a .when on whether the run measured something (a key
-- *.measured, or is=/not= "measured"), whose dropped branch is the
-- sentence an older run cannot fill (below).
-- Two or more .when side by side on one key are a choice, and a value no
-- branch of it takes stops the build too (a word would go missing).
--
-- The values a .when may meet are declared once, by the key's family in
-- the table of provenance (below): a family of words names them as its unit, "yes or
-- no", "holds, fails or undecided" (a last alternative "a text" admits any
-- other text as well); any other family is one of numbers, and its .when
-- compares whole numbers. A value outside its family's set, or an is= or
-- not= alternative outside it (a word the value can never be), stops the
-- build with the key, the value and the set: a sentence is never dropped
-- because a run said something no branch expected.
--
-- Values come from $IPCTAX_WOVEN/values.csv (default build/woven). A
-- placeholder whose key is missing stops the build, after every missing key
-- has been listed, so a number can never silently go stale or blank.
--
-- Where each number comes from: the table of provenance declares, once per
-- family of keys (a pattern such as arch.*.ratio, where * stands for one
-- dotted part of a key and ** for any run of them; the first pattern that
-- matches is the key's), its unit, its estimator, what its n counts, the
-- files of data/ and the columns it is computed from, and the chunk of the
-- program that computes it. The build gathers it ($IPCTAX_PROVENANCE,
-- default build/woven/provenance.csv) from paper/provenance.csv, the
-- families every chapter relies on, and the provenance blocks of the
-- chapters, each beside the summarizer that publishes its families
-- (the tangler's --provenance). Every key the paper uses must have a family,
-- and every file and column a family names must exist in data/; anything
-- else stops the build, like a missing value. A number carries its key
-- (data-k) and, for an estimate, its interval, n, n's unit and the interval's
-- coverage in percent (data-e="low;high;n;unit;coverage");
-- the families the paper uses travel in the metadata (ipctax-provenance) to
-- chunks.lua, which checks their chunks and writes them into the page for
-- paper/web/numbers.js, whose panel says all of it. In LaTeX the number
-- carries its chunk's name instead, and chunks.lua makes it a link.
--
-- Used keys: the filter writes $IPCTAX_WOVEN/used-keys.txt, every value key
-- the weave asked for (placeholders, .when keys, run.reduced for
-- .if-reduced) and every table it read (as tables/NAME.csv), one per line,
-- sorted, so that a check can list what the summarizer computes and nothing
-- uses. Both renderings ask for the same keys; each writes the whole file.

local woven = os.getenv("IPCTAX_WOVEN") or "build/woven"
local PROVENANCE = os.getenv("IPCTAX_PROVENANCE") or "build/woven/provenance.csv"
local DATA_DIR = os.getenv("IPCTAX_DATA") or "data"
local is_latex = FORMAT:match("latex") ~= nil
local values = nil
local missing = {}
local used = {}         -- key or tables/NAME.csv -> true

-- A small CSV reader: quoted fields, doubled quotes, commas and newlines inside.
local function parse_csv(text)
  local rows, row, field, i, n = {}, {}, {}, 1, #text
  local in_quotes = false
  while i <= n do
    local c = text:sub(i, i)
    if in_quotes then
      if c == '"' and text:sub(i + 1, i + 1) == '"' then
        field[#field + 1] = '"'; i = i + 1
      elseif c == '"' then
        in_quotes = false
      else
        field[#field + 1] = c
      end
    elseif c == '"' then
      in_quotes = true
    elseif c == ',' then
      row[#row + 1] = table.concat(field); field = {}
    elseif c == '\n' then
      row[#row + 1] = table.concat(field); field = {}
      rows[#rows + 1] = row; row = {}
    elseif c ~= '\r' then
      field[#field + 1] = c
    end
    i = i + 1
  end
  if #field > 0 or #row > 0 then
    row[#row + 1] = table.concat(field)
    rows[#rows + 1] = row
  end
  return rows
end

local function read_csv(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return parse_csv(text)
end

local function load_values()
  if values then return values end
  local rows = read_csv(woven .. "/values.csv")
  if not rows then
    error("values.lua: " .. woven .. "/values.csv is missing; run ipctax-summary (make weave)")
  end
  values = {}
  for r = 2, #rows do values[rows[r][1]] = rows[r][2] end
  return values
end

local function value_of(key)
  used[key] = true
  local v = load_values()[key]
  if v == nil then
    missing[#missing + 1] = key
    return "??" .. key .. "??"
  end
  return v
end

-- --- Provenance -------------------------------------------------------------------

local families = nil    -- the rows of the table of provenance, in order
local unsourced = {}    -- keys no family matches, and families that name what data/ lacks

-- A family's pattern as an anchored Lua pattern: ** any run of characters,
-- * one dotted part of a key, everything else itself.
local function key_pattern(glob)
  local out = glob:gsub("[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0")
  out = out:gsub("%*%*", "\0"):gsub("%*", "[^.]+"):gsub("\0", ".+")
  return "^" .. out .. "$"
end

-- The header of a file of data/, as a set of column names (nil if absent).
local headers = {}
local function columns_of(file)
  if headers[file] == nil then
    local f = io.open(DATA_DIR .. "/" .. file, "r")
    headers[file] = false
    if f then
      local line = f:read("l") or ""
      f:close()
      local set = {}
      for _, name in ipairs((parse_csv(line .. "\n"))[1] or {}) do set[name] = true end
      headers[file] = set
    end
  end
  return headers[file] or nil
end

-- "architectures.csv: architecture round seconds; gate.csv: verdict" ->
-- {{file=..., columns={...}}, ...}, each file and column checked against data/;
-- a file marked "?" may be absent (a run older than it), a column likewise.
local function parse_from(text, pattern)
  local out = {}
  for part in (text .. ";"):gmatch("%s*(.-)%s*;") do
    if part ~= "" then
      -- "file.csv?": a file a run older than it lacks (states.csv, witnesses.csv)
      local file, later, cols = part:match("^([%w_%.%-]+%.csv)(%??)%s*:%s*(.-)$")
      if not file then
        file, later = part:match("^([%w_%.%-]+%.csv)(%??)$")
        cols = ""
      end
      if not file then
        unsourced[#unsourced + 1] = pattern .. ": cannot read the source \"" .. part .. "\""
      else
        local set = columns_of(file)
        local list = {}
        for col in cols:gmatch("[^%s,]+") do
          -- "name?": a column a run older than it may lack (paper/90-appendix-report.md)
          local optional = col:sub(-1) == "?"
          col = optional and col:sub(1, -2) or col
          list[#list + 1] = col
          if set and not set[col] and not optional then
            unsourced[#unsourced + 1] = pattern .. ": " .. DATA_DIR .. "/" .. file
              .. " has no column " .. col
          end
        end
        if not set and later ~= "?" then
          unsourced[#unsourced + 1] = pattern .. ": " .. DATA_DIR .. "/" .. file .. " does not exist"
        end
        out[#out + 1] = {file = file, columns = list}
      end
    end
  end
  return out
end

local FAMILY_COLUMNS = {"key", "unit", "estimator", "n", "from", "chunk"}

local function load_families()
  if families then return families end
  families = {}
  local rows = read_csv(PROVENANCE)
  if not rows then
    error("values.lua: cannot read " .. PROVENANCE .. " (make gathers it from "
          .. "paper/provenance.csv and the chapters' provenance blocks)")
  end
  for c, name in ipairs(FAMILY_COLUMNS) do
    if (rows[1] or {})[c] ~= name then
      error("values.lua: " .. PROVENANCE .. " must start with the header "
            .. table.concat(FAMILY_COLUMNS, ","))
    end
  end
  for r = 2, #rows do
    local row = rows[r]
    if #row > 0 and not (#row == 1 and row[1] == "") then
      local f = {}
      for c, name in ipairs(FAMILY_COLUMNS) do f[name] = row[c] or "" end
      if f.key == "" or f.chunk == "" then
        error("values.lua: " .. PROVENANCE .. " row " .. r .. " needs a key and a chunk")
      end
      f.pattern = key_pattern(f.key)
      f.sources = parse_from(f.from, f.key)
      families[#families + 1] = f
    end
  end
  return families
end

-- The family of key (marked used), or nil (and the build stops at the end).
local function family_of(key)
  for _, f in ipairs(load_families()) do
    if key:match(f.pattern) then
      f.used = true
      return f
    end
  end
  unsourced[#unsourced + 1] = key .. " (no family in " .. PROVENANCE
    .. "; a chapter declares its families in a provenance block)"
  return nil
end

-- The families the paper used, as metadata for chunks.lua.
local function families_meta()
  local list = pandoc.List()
  for _, f in ipairs(load_families()) do
    if f.used then
      local from = pandoc.List()
      for _, s in ipairs(f.sources) do
        local cols = pandoc.List()
        for _, col in ipairs(s.columns) do cols:insert(pandoc.MetaString(col)) end
        from:insert(pandoc.MetaMap({file = pandoc.MetaString(s.file), columns = cols}))
      end
      list:insert(pandoc.MetaMap({key = pandoc.MetaString(f.key), unit = pandoc.MetaString(f.unit),
        estimator = pandoc.MetaString(f.estimator), n = pandoc.MetaString(f.n), from = from,
        chunk = pandoc.MetaString(f.chunk)}))
    end
  end
  return list
end

-- A number's attributes: its key and, for an estimate, its interval and n
-- (HTML), or the chunk that computes it (LaTeX).
local function number_attributes(key)
  local f = family_of(key)
  if is_latex then return f and {{"chunk", f.chunk}} or {} end
  local attrs = {{"data-k", key}}
  local v = load_values()
  local n = v[key .. ".n"]
  if n and v[key .. ".low"] and v[key .. ".high"] then
    -- the units n counts and the interval's coverage, as the report recorded
    -- them; all of them read, for the panel of the number (used-keys.txt)
    for _, part in ipairs({".low", ".high", ".n", ".unit", ".coverage_pct"}) do
      if v[key .. part] then used[key .. part] = true end
    end
    attrs[2] = {"data-e", table.concat({v[key .. ".low"], v[key .. ".high"], n,
                                        v[key .. ".unit"] or "", v[key .. ".coverage_pct"] or ""},
                                       ";")}
  end
  return attrs
end

-- How a value is printed: a leading minus is a minus sign (U+2212), not a
-- hyphen, as in the prose; the text in data/ is unchanged.
local function display(text)
  text = text:gsub("^%-(%d)", "\u{2212}%1")
  -- an apostrophe after a letter (a run's, the runs') as the prose's own:
  -- pandoc curls the chapters' but not a value's text
  return (text:gsub("(%a)'", "%1\u{2019}"))
end

-- A value or a cell may be text no author wrote (a processor's name, a
-- kept run's conditions): in the PDF, text with a character beyond ASCII
-- is set inside \IpctaxAnyText (paper/latex/preamble.tex), which prints a
-- character no font has as its code point instead of stopping. The one
-- path all such text takes: value_inlines, which the cells use too.
local function any_text(inlines, text)
  if not is_latex or not text:find("[%c\128-\255]") then return inlines end
  table.insert(inlines, 1, pandoc.RawInline("latex", "{\\IpctaxAnyText{}"))
  inlines[#inlines + 1] = pandoc.RawInline("latex", "}")
  return inlines
end

-- A long unbroken value (a SHA-256, say) may break between groups of eight
-- characters in the PDF; in HTML the style sheet lets it wrap anywhere.
local function value_inlines(text)
  text = display(text)
  if not is_latex or #text <= 24 or text:find("[%s\128-\255]") then
    return any_text({pandoc.Str(text)}, text)
  end
  local out = {}
  for i = 1, #text, 8 do
    if i > 1 then out[#out + 1] = pandoc.RawInline("latex", "\\allowbreak{}") end
    out[#out + 1] = pandoc.Str(text:sub(i, i + 7))
  end
  return any_text(out, text)
end

-- --- The indefinite article --------------------------------------------------
-- "a" or "an" as the value is read aloud. Letters that are spelt out (an
-- all-capital word such as AMD, or a single letter) take "an" when their
-- name starts with a vowel sound: A E F H I L M N O R S X. A word takes "an"
-- before a vowel, except where the vowel sounds like "you" or "wun" (a
-- unit, a one-off, a European), and also before a silent h (an hour).
-- Numbers: "an" before 8, 11 and 18 as they are read (an 8-core, an 11,000,
-- an 18 GB; but a 110, a 1,800).
local SPELT_AN = "[AEFHILMNORSX]"
local YOU_SOUND = {"^uni", "^use", "^usu", "^ura", "^uro", "^uti", "^ubi", "^eu", "^ewe",
                   "^one", "^once", "^uk"}
local SILENT_H = {"^hour", "^honest", "^honou?r", "^heir"}

local function article_for(text)
  local word = text:match("^[%p%s]*([%w][%w%-%.,]*)") or ""
  local digits = word:match("^[%d,]+")
  if digits then
    -- read in groups of three: 11 and 18 lead "eleven", "eighteen" when
    -- the first group has two digits (11, 18,000, 11,500,000)
    local lead = digits:gsub(",", "")
    if lead:match("^8") then return "an" end
    local first = #lead % 3 == 0 and 3 or #lead % 3
    local group = lead:sub(1, first)
    if group == "11" or group == "18" then return "an" end
    return "a"
  end
  local first_word = word:match("^[%a]+") or ""
  if first_word == "" then return "a" end
  if #first_word == 1 or (#first_word > 1 and first_word == first_word:upper()
                          and first_word:match("^%u+$")) then
    -- spelt letter by letter; but an all-capital word that reads as a word
    -- (ARM, ASIC) starts with its letter's sound anyway, so the rule agrees
    if first_word:sub(1, 1):match(SPELT_AN) then return "an" end
    return "a"
  end
  local lower = first_word:lower()
  for _, p in ipairs(SILENT_H) do if lower:match(p) then return "an" end end
  for _, p in ipairs(YOU_SOUND) do if lower:match(p) then return "a" end end
  if lower:match("^[aeiou]") then return "an" end
  return "a"
end

-- --- Digits -------------------------------------------------------------------
-- Every digit is the summary's: ipctax-summary prints each value as the
-- paper prints it (an estimate to the digits its interval resolves; see
-- put_estimate, paper/90-appendix-report.md) and this filter prints the
-- text it finds. It once rounded estimates again here, from texts already
-- rounded, which could round twice and add zeros no measurement had; a
-- class that asked for that (.sig) stops the build, so that no chapter
-- waits for it.

-- A value that is code (compiler flags, a command) is asked for as
-- [key]{.num .code} and printed verbatim as inline code: no minus sign.
local function num_span(el)
  local key = pandoc.utils.stringify(el.content)
  local attrs = number_attributes(key)
  local attr = pandoc.Attr("", {"num"}, attrs)
  local v = value_of(key)
  local out
  if el.classes:includes("code") then out = pandoc.Code(v, attr)
  elseif el.classes:includes("ci") then
    local lo, hi = value_of(key .. ".low"), value_of(key .. ".high")
    local inl = value_inlines(v)
    inl[#inl + 1] = pandoc.Str("\u{00A0}[")
    for _, x in ipairs(value_inlines(lo)) do inl[#inl + 1] = x end
    inl[#inl + 1] = pandoc.Str(",")
    inl[#inl + 1] = pandoc.Space()
    for _, x in ipairs(value_inlines(hi)) do inl[#inl + 1] = x end
    -- an interval that holds the median less often than 95% (too few
    -- units) says how often, wherever it is printed (as format_estimate
    -- does in a table)
    local coverage_text = load_values()[key .. ".coverage_pct"]
    local coverage = tonumber(coverage_text or "")
    if coverage and coverage > 0 and coverage < 95 then
      used[key .. ".coverage_pct"] = true
      inl[#inl + 1] = pandoc.Str(";")
      inl[#inl + 1] = pandoc.Space()
      inl[#inl + 1] = pandoc.Str(coverage_text .. "%")
      inl[#inl + 1] = pandoc.Space()
      inl[#inl + 1] = pandoc.Str("coverage")
    end
    inl[#inl + 1] = pandoc.Str("]")
    out = pandoc.Span(inl, pandoc.Attr("", {"num", "ci"}, attrs))
  else
    if el.classes:includes("sig") then
      error("values.lua: [" .. key .. "]{.num .sig}: the summary decides every digit; "
            .. "write [" .. key .. "]{.num} (put_estimate, paper/90-appendix-report.md)")
    end
    out = pandoc.Span(value_inlines(v), attr)
  end
  local capital = el.classes:includes("Article")
  if capital or el.classes:includes("article") then
    local a = article_for(v)
    if capital then a = a:gsub("^%l", string.upper) end
    return {pandoc.Str(a), pandoc.Space(), out}
  end
  return out
end

-- --- .when ----------------------------------------------------------------------

local function alternatives(s)
  local out = {}
  for alt in (s .. "|"):gmatch("(.-)|") do out[#out + 1] = alt end
  return out
end

local function one_of(v, list)
  for _, alt in ipairs(list) do if v == alt then return true end end
  return false
end

-- True when the element's condition holds; nil (and the build stops at the
-- end) when it cannot be read.
-- The closed set a family's unit declares, as a set of words and whether
-- any other text is admitted too; nil for a family of numbers.
local function declared_set(unit)
  local body, last = unit:match("^(.-) or (.+)$")
  if not body then return nil end
  local words, set, open = {}, {}, false
  for w in (body .. ","):gmatch("%s*([^,]-)%s*,") do words[#words + 1] = w end
  words[#words + 1] = last
  for i, w in ipairs(words) do
    if w == "a text" and i == #words then open = true
    elseif w:match("^[%w_]+[%w_ ]*$") then set[w] = true   -- "not measured" is one word
    else return nil end
  end
  return set, open
end

local function whole_number(text)
  return text:match("^%d[%d,]*$") ~= nil
end

-- Why value (or an alternative) is outside the set the key's family
-- declares, or nil when it is inside.
local function outside(f, v, what)
  local set, open = declared_set(f.unit)
  if set then
    if set[v] or (open and what == "value") then return nil end
    local words = {}
    for w in pairs(set) do words[#words + 1] = w end
    table.sort(words)
    return what .. " \"" .. v .. "\" is not one of " .. table.concat(words, ", ")
      .. (open and " (or a text, for a value)" or "") .. ", the values family " .. f.key
      .. " declares (its unit in " .. PROVENANCE .. ")"
  end
  if whole_number(v) then return nil end
  return what .. " \"" .. v .. "\" is not a whole number, and family " .. f.key
    .. " (unit \"" .. f.unit .. "\") declares no words (a unit \"a or b\" in "
    .. PROVENANCE .. " would)"
end

local outside_sets = {}   -- .when values and alternatives outside their declared sets

-- Holds key's value and the element's alternatives to its family's set.
local function check_when_values(key, v, is, isnt)
  local f = family_of(key)
  if not f then return end
  local why = outside(f, v, "value")
  for _, list in ipairs({is or "", isnt or ""}) do
    for _, alt in ipairs(list ~= "" and alternatives(list) or {}) do
      why = why or outside(f, alt, "alternative")
    end
  end
  if why then outside_sets[#outside_sets + 1] = ".when key=" .. key .. ": " .. why end
end

local function when_holds(el)
  local key, is, isnt = el.attributes["key"], el.attributes["is"], el.attributes["not"]
  if not key or key == "" or (not is and not isnt) then
    missing[#missing + 1] = ".when needs key= and is= or not= (" .. (key or "no key") .. ")"
    return nil
  end
  used[key] = true
  local v = load_values()[key]
  if v == nil then
    family_of(key)
    missing[#missing + 1] = key .. " (in .when)"
    return nil
  end
  check_when_values(key, v, is, isnt)
  if is and not one_of(v, alternatives(is)) then return false end
  if isnt and one_of(v, alternatives(isnt)) then return false end
  return true
end

local function Span(el)
  if el.classes:includes("num") then return num_span(el) end
  return nil
end

-- The choices are made first, from the document's root down. A sentence
-- left out by a choice on whether the run measured something (a key
-- *.measured: mech.measured, witness.measured, ...; or a choice whose
-- values say "measured", as roof.parts is=measured) is gone before its
-- placeholders are looked up, so an older run that lacks a newer
-- measurement weaves without it. Any other branch left out (a verdict's, a
-- reduced run's) still has its placeholders looked up, so a misspelt key
-- cannot wait for the run whose verdict would show it.
local function measured_flag(el)
  local key = el.attributes["key"] or ""
  local said = (el.attributes["is"] or "") .. "|" .. (el.attributes["not"] or "")
  return key:match("%.measured$") ~= nil or said:match("measured") ~= nil
end

local check_dropped   -- the filter a dropped branch is checked with (below)

local function drop(el)
  if not measured_flag(el) then el:walk(check_dropped) end
  return {}, false
end

local chooser = {traverse = "topdown"}   -- this pass's filter (its functions below)

-- What a kept choice leaves: its content, with the choices inside it made
-- too (a topdown walk does not go into what a function put in its place).
local function kept(el)
  local content = el.t == "Div" and pandoc.Blocks(el.content) or pandoc.Inlines(el.content)
  return content:walk(chooser), false
end

local function if_reduced(el)
  used["run.reduced"] = true
  local v = load_values()["run.reduced"]
  if v == nil then
    missing[#missing + 1] = "run.reduced (in .if-reduced)"
    return {}, false
  end
  check_when_values("run.reduced", v, "yes", nil)
  if v == "yes" then
    el.content = pandoc.Blocks(el.content):walk(chooser)
    return el, false
  end
  return drop(el)
end

local function choose(el)
  if el.classes:includes("when") then
    if when_holds(el) then return kept(el) end
    return drop(el)
  end
  if el.t == "Div" and el.classes:includes("if-reduced") then return if_reduced(el) end
  return nil
end
chooser.Span, chooser.Div = choose, choose

-- A choice is two or more .when side by side on one key, one branch per
-- value ([holds]{.when ...}[fails]{.when ...}): when the run's value fits
-- none of its branches, the sentence would lose its word without a trace,
-- so the build stops and names the key and the value. A lone .when is an
-- optional sentence, and may drop.
local unchosen = {}

local function is_when(el, tag)
  return el and el.t == tag and el.classes:includes("when") and el.attributes["key"] ~= nil
end

local function check_choices(list, tag)
  local i = 1
  while i <= #list do
    local j = i
    while is_when(list[j], tag) and is_when(list[j + 1], tag)
          and list[j + 1].attributes["key"] == list[i].attributes["key"] do
      j = j + 1
    end
    if j > i and is_when(list[i], tag) then
      local key = list[i].attributes["key"]
      local v = load_values()[key]
      local fits = v == nil       -- a missing key is reported where the branches are read
      for k = i, j do
        fits = fits or when_holds(list[k]) ~= false
      end
      if not fits then
        unchosen[#unchosen + 1] = key .. " is \"" .. v .. "\", which no branch of its choice takes"
      end
    end
    i = j + 1
  end
  return nil
end
chooser.Inlines = function(list) return check_choices(list, "Span") end
chooser.Blocks = function(list) return check_choices(list, "Div") end

-- Inside a dropped branch: its placeholders are looked up (and so must be
-- there), except inside a choice on a measured flag, which is skipped whole.
check_dropped = {
  traverse = "topdown",
  Span = function(el)
    if el.classes:includes("when") and measured_flag(el) then return {}, false end
    if el.classes:includes("num") then num_span(el) end
    return nil
  end,
  Div = function(el)
    if el.classes:includes("when") and measured_flag(el) then return {}, false end
    return nil
  end,
}

-- Inside backticks a placeholder is only text and would be printed as
-- written; that is a mistake in the prose, so it stops the build.
local function Code(el)
  if el.text:match("^%[[%w%._%-]+%]{%.num[^}]*}$") then
    error("values.lua: placeholder inside backticks, " .. el.text ..
          "; write [key]{.num .code} for a value printed as code")
  end
end

-- --- Tables -----------------------------------------------------------------------

-- An identifier in a cell (in_process_tuned_1core_sequential) may break
-- after an underscore, so that a narrow column wraps it instead of letting
-- it run into the next one (the PDF) or push the table past the window
-- (the page, where a word that cannot break sets a table's least width).
local function cell_inlines(text)
  local target = text:match("^@(%a+:[%w%-_]+)$")
  if target then
    return {pandoc.Cite({pandoc.Str(text)}, {pandoc.Citation(target, "SuppressAuthor")})}
  end
  if not (text:find("_", 1, true) and not text:find("%s")) then
    return value_inlines(text)
  end
  local out, pos = {}, 1
  local mark = is_latex and pandoc.RawInline("latex", "\\allowbreak{}")
                        or pandoc.RawInline("html", "<wbr>")
  while pos <= #text do
    local stop = text:find("_", pos, true)
    if not stop then
      out[#out + 1] = pandoc.Str(text:sub(pos))
      break
    end
    out[#out + 1] = pandoc.Str(text:sub(pos, stop))
    out[#out + 1] = mark
    pos = stop + 1
  end
  return any_text(out, text)
end

local function cell(text)
  return {pandoc.Plain(cell_inlines(text))}
end

local function len(text) return utf8.len(text) or #text end

-- How wide a text is set in the tables' type (Latin Modern, \footnotesize,
-- 8pt), in points, near enough to share a line out: each character by its
-- kind, as measured at 9pt and scaled.
local TABLE_TYPE = 8 / 9
local function points(text)
  local w = 0
  if not utf8.len(text) then return #text * 4.6 * TABLE_TYPE end  -- not UTF-8: by its bytes
  for _, c in utf8.codes(text) do
    local ch = c < 128 and string.char(c) or ""
    if ch:match("[ijlI.,:;'!|]") then w = w + 2.6
    elseif ch:match("[mwMW]") then w = w + 7.4
    elseif ch:match("%u") then w = w + 6.6
    elseif ch:match("[()%[%]]") then w = w + 3.6
    elseif ch == " " then w = w + 3.1
    elseif ch == "_" then w = w + 5.6
    elseif ch == "" then w = w + 5.0
    else w = w + 4.6 end
  end
  return w * TABLE_TYPE
end

-- The widest piece of a cell that should not wrap: a word, an identifier
-- whole (in_process_tuned_1core_sequential: a name broken at an underscore
-- reads as two), an interval glued by glue_intervals. Only when even these
-- minimums are wider than the line does a column give way, and then an
-- identifier breaks after an underscore (cell_inlines).
local function widest_piece(text)
  local widest = 0
  for word in text:gmatch("%S+") do widest = math.max(widest, points(word)) end
  return widest
end

-- Column widths from the content. A table whose rows fit the text width on
-- one line each, headers included, keeps LaTeX's natural widths (0).
-- Otherwise every column gets at least its widest unbreakable piece
-- (header words included; numbers whole), and what is left of the line
-- goes to the columns in proportion to how much more their widest cell
-- wants (a header counts by its widest word, as it may wrap), never more
-- than it wants: a column whose cells all fit takes no more room.
-- TEXT_WIDTH is the PDF's text width (A4, margins of 2 cm), SEP the
-- space between two columns (2\tabcolsep, paper/latex/preamble.tex);
-- pandoc's p{} columns are fractions of the text width less those spaces.
local TEXT_WIDTH, SEP, SLACK = 482, 8, 6

local function column_widths(rows, numeric)
  local ncol = #rows[1]
  local mins, maxs, natural = {}, {}, SEP * (ncol - 1)
  for c = 1, ncol do
    local lo, hi, whole = 0, 0, 0
    for r = 1, #rows do
      local text = rows[r][c] or ""
      whole = math.max(whole, points(text))
      if r > 1 then hi = math.max(hi, points(text)) else hi = math.max(hi, widest_piece(text)) end
      if numeric[c] and r > 1 then lo = math.max(lo, points(text))
      else lo = math.max(lo, widest_piece(text)) end
    end
    mins[c], maxs[c] = lo + SLACK, math.max(hi, lo) + SLACK
    natural = natural + whole + SLACK
  end
  local widths = {}
  if natural <= TEXT_WIDTH then
    for c = 1, ncol do widths[c] = 0 end
    return widths
  end
  local room = TEXT_WIDTH - SEP * (ncol - 1)
  local sum_min, sum_extra = 0, 0
  for c = 1, ncol do
    sum_min = sum_min + mins[c]
    sum_extra = sum_extra + (maxs[c] - mins[c])
  end
  local spare = math.max(room - sum_min, 0)
  local total = 0
  for c = 1, ncol do
    local want = maxs[c] - mins[c]
    local extra = sum_extra > 0 and math.min(want, spare * want / sum_extra) or 0
    widths[c] = mins[c] + extra
    total = total + widths[c]
  end
  -- If the minimums alone are wider than the line, every column gives way
  -- in proportion and the table is as wide as the text.
  local scale = total <= room and 1 or room / total
  for c = 1, ncol do widths[c] = scale * widths[c] / room end
  return widths
end

local function looks_numeric(text)
  return text:match("^%-?[%d,]+%.?%d*$") ~= nil
end

-- How many lines a table takes on the page, roughly: a row is as tall as
-- its most wrapped cell. Used to keep a moderate table on one page.
local function table_lines(rows, widths, caption_text)
  local lines = 2 + math.ceil(points(caption_text) / TEXT_WIDTH)   -- rules and caption
  local room = TEXT_WIDTH - SEP * (#rows[1] - 1)
  for r = 1, #rows do
    local tallest = 1
    for c = 1, #rows[r] do
      if widths[c] and widths[c] > 0 then
        tallest = math.max(tallest, math.ceil(points(rows[r][c] or "") / (widths[c] * room)))
      end
    end
    lines = lines + tallest
  end
  return lines
end

-- A table up to this many lines (a third of a page) is never broken across
-- pages in the book's PDF: if it does not fit in what is left of the page
-- it starts on the next. In the paper (Part I) no table may break: every
-- one up to most of a page starts where it fits, and the weave checks the
-- pages each table starts and ends on (\IpctaxTableStart and End mark
-- them in the .aux; the Makefile's rule for the PDF compares them).
local UNBROKEN_LINES = os.getenv("IPCTAX_EDITION") == "paper" and 60 or 18

-- The verdict strip's cells: a verdict as its letter on its colour, with
-- the word as its title (a colour alone says nothing to some readers, and
-- nothing in grey print); the claims' names of its header set upright.
local VERDICT_LETTER = {holds = "H", fails = "F", undecided = "U"}

local function verdict_cell(text)
  local letter = VERDICT_LETTER[text]
  if not letter then
    return cell((text == "n/a" or text == "not measured") and "\u{2013}" or text)
  end
  if is_latex then
    return {pandoc.Plain({pandoc.RawInline("latex", "\\IpctaxVerdict{" .. text .. "}{" .. letter .. "}")})}
  end
  return {pandoc.Plain({pandoc.Span({pandoc.Str(letter)},
    pandoc.Attr("", {"verdict", "v-" .. text}, {{"title", text}, {"aria-label", text}}))})}
end

local function upright_cell(text)
  if is_latex then
    local inl = pandoc.List({pandoc.RawInline("latex", "\\rotatebox{90}{")})
    inl:extend(cell_inlines(text))
    inl:insert(pandoc.RawInline("latex", "}"))
    return {pandoc.Plain(inl)}
  end
  return {pandoc.Plain({pandoc.Span(cell_inlines(text), pandoc.Attr("", {"strip-claim"}))})}
end

-- On the page, what a table's caption ends with: its data file, published
-- beside the page, and a mark that chunks.lua makes a link to the chunk
-- that writes the table.
local function table_source(name)
  if is_latex then return {} end
  local file = "tables/" .. name .. ".csv"
  return {pandoc.Space(), pandoc.Span({pandoc.Str("Data:"), pandoc.Space(),
    pandoc.Link({pandoc.Str(name .. ".csv")}, file),
    pandoc.Span({}, pandoc.Attr("", {"table-source"}, {{"data-table", name}}))},
    pandoc.Attr("", {"table-data"}))}
end

-- An estimate with its interval, "1.003 [0.996, 1.023]", is one thing to
-- read and must not wrap: its spaces become no-break spaces, so that the
-- column widths below count it as one unbreakable piece.
local NBSP = "\u{a0}"
local function glue_intervals(text)
  return (text:gsub("(%S+) %[(%S+), (%S+)%]", "%1" .. NBSP .. "[%2," .. NBSP .. "%3]"))
end

-- A short cell ("0.50 to 2.00x", "below 2%", "12 couples") is read at a
-- glance and is not worth two lines: up to SHORT_CELL characters, its
-- spaces do not break either.
local SHORT_CELL = 16
local function glue_short(text)
  if (utf8.len(text) or #text) > SHORT_CELL then return text end
  return (text:gsub(" ", NBSP))
end

-- Builds a pandoc Table from tables/NAME.csv, numeric columns right-aligned.
local function data_table(div)
  local name = div.attributes["src"]
  used["tables/" .. name .. ".csv"] = true
  local rows = read_csv(woven .. "/tables/" .. name .. ".csv")
  if not rows or #rows < 1 then
    missing[#missing + 1] = "table " .. name
    return {pandoc.Para({pandoc.Str("??table " .. name .. "??")})}
  end
  local strip = div.classes:includes("verdict-strip")
  for r = 2, #rows do
    for c = 1, #rows[r] do
      rows[r][c] = glue_intervals(rows[r][c])
      if not strip then rows[r][c] = glue_short(rows[r][c]) end   -- a strip's cells are words
    end
  end
  local header, aligns, numeric, body = {}, {}, {}, {}
  for c, text in ipairs(rows[1]) do
    header[c] = (strip and c > 1) and upright_cell(text) or cell(text)
    numeric[c] = #rows > 1
    for r = 2, #rows do
      if rows[r][c] ~= "" and not looks_numeric(rows[r][c]) then numeric[c] = false end
    end
    aligns[c] = (strip and c > 1) and pandoc.AlignCenter
      or numeric[c] and pandoc.AlignRight or pandoc.AlignLeft
  end
  -- A reference cell (@sec:id) is set as its number: measured as one.
  local measured = {}
  for r = 1, #rows do
    measured[r] = {}
    for c = 1, #rows[r] do
      measured[r][c] = rows[r][c]:match("^@%a+:") and "00.00" or rows[r][c]
    end
  end
  local widths = column_widths(measured, numeric)
  if strip then
    for c = 1, #widths do widths[c] = 0 end      -- letters: the natural widths fit
  end
  for r = 2, #rows do
    local cells = {}
    for c = 1, #rows[1] do
      cells[c] = (strip and c > 1) and verdict_cell(rows[r][c] or "") or cell(rows[r][c] or "")
    end
    body[#body + 1] = cells
  end
  local caption = {}
  if div.content[1] then caption = div.content[1].content end
  caption = pandoc.List(caption)
  caption:extend(table_source(name))
  local simple = pandoc.SimpleTable(caption, aligns, widths, header, body)
  local out = {pandoc.utils.from_simple_table(simple)}
  local lines = table_lines(measured, widths, pandoc.utils.stringify(caption))
  if is_latex and lines <= UNBROKEN_LINES then
    table.insert(out, 1, pandoc.RawBlock("latex",
      string.format("\\Needspace{%d\\baselineskip}", math.ceil(lines * 1.15) + 2)))
  end
  return out
end

-- ::: {.verdicts of="id id ..."} ::: ends a section of the results on
-- the verdicts of the claims it shows: each claim's name, its verdict, its
-- estimate and its threshold, from the values the claims table is made of,
-- so that the section and the table cannot disagree.
local function verdicts_para(el)
  local function value(key)
    local span = num_span(pandoc.Span({pandoc.Str(key)}, pandoc.Attr("", {"num"})))
    return span.t and {span} or span
  end
  local ids = pandoc.List()
  for id in (el.attributes["of"] or ""):gmatch("%S+") do ids:insert(id) end
  if #ids == 0 then error("values.lua: a .verdicts div names no claim (of=\"...\")") end
  local out = pandoc.List({pandoc.Strong({pandoc.Str(#ids > 1 and "Verdicts." or "Verdict.")})})
  for i, id in ipairs(ids) do
    out:insert(pandoc.Space())
    out:insert(pandoc.Code(id))
    out:insert(pandoc.Space())
    out:insert(pandoc.Emph(value("claim." .. id .. ".verdict")))
    out:insert(pandoc.Space())
    out:insert(pandoc.Str("("))
    out:extend(value("claim." .. id .. ".estimate"))
    out:insert(pandoc.Str(";"))
    out:insert(pandoc.Space())
    out:insert(pandoc.Str("threshold"))
    out:insert(pandoc.Space())
    out:extend(value("claim." .. id .. ".threshold"))
    out:insert(pandoc.Str(i < #ids and ");" or ")."))
  end
  return {pandoc.Para(out)}
end

local function Div(el)
  if el.classes:includes("verdicts") then return verdicts_para(el) end
  if el.classes:includes("datatable") then
    local blocks = data_table(el)
    local tbl = table.remove(blocks)
    local out = pandoc.List(blocks)
    local classes = {"datatable"}
    if el.classes:includes("verdict-strip") then classes[2] = "verdict-strip" end
    local mark = is_latex and el.identifier ~= ""
    if mark then out:insert(pandoc.RawBlock("latex", "\\IpctaxTableStart{" .. el.identifier .. "}")) end
    out:insert(pandoc.Div({tbl}, pandoc.Attr(el.identifier, classes)))
    if mark then out:insert(pandoc.RawBlock("latex", "\\IpctaxTableEnd{" .. el.identifier .. "}")) end
    return out
  end
  return nil
end

-- used-keys.txt, written whole and then renamed into place: the HTML and
-- the PDF are woven at the same time and write the same list.
local function write_used()
  local list = {}
  for k in pairs(used) do list[#list + 1] = k end
  table.sort(list)
  local path = woven .. "/used-keys.txt"
  local tmp = path .. "." .. FORMAT .. ".tmp"
  local f = io.open(tmp, "w")
  if not f then error("values.lua: cannot write " .. tmp) end
  f:write(table.concat(list, "\n"), #list > 0 and "\n" or "")
  f:close()
  local ok, err = os.rename(tmp, path)
  if not ok then error("values.lua: cannot write " .. path .. ": " .. tostring(err)) end
end

local function Pandoc(doc)
  if #missing > 0 then
    io.stderr:write("values.lua: the paper asks for values that data/ does not give:\n")
    for _, key in ipairs(missing) do io.stderr:write("  " .. key .. "\n") end
    error("values.lua: " .. #missing .. " missing value(s); see above")
  end
  if #unchosen > 0 then
    io.stderr:write("values.lua: choices with no branch for the run's value:\n")
    for _, why in ipairs(unchosen) do io.stderr:write("  " .. why .. "\n") end
    error("values.lua: " .. #unchosen .. " choice(s) without a branch; see above")
  end
  if #outside_sets > 0 then
    io.stderr:write("values.lua: .when values outside the sets their families declare:\n")
    for _, why in ipairs(outside_sets) do io.stderr:write("  " .. why .. "\n") end
    error("values.lua: " .. #outside_sets .. " .when value(s) outside their sets; see above")
  end
  if #unsourced > 0 then
    local seen, list = {}, {}
    for _, s in ipairs(unsourced) do
      if not seen[s] then seen[s] = true; list[#list + 1] = s end
    end
    io.stderr:write("values.lua: where these numbers come from is not declared right:\n")
    for _, s in ipairs(list) do io.stderr:write("  " .. s .. "\n") end
    error("values.lua: " .. #list .. " problem(s) with where the numbers come from; see above")
  end
  write_used()
  doc.meta["ipctax-provenance"] = families_meta()
  return doc
end

-- The choices first (from the root down), then spans (they may sit inside
-- table captions), then divs, then the check.
-- A percentage printed with its interval, [key]{.num .ci}%, reads
-- "0.12% [0.11, 0.13]", not "0.12 [0.11, 0.13]%": the sign that follows the
-- span moves in, after the value and before the interval.
local function percent_inside(inlines)
  for i = 1, #inlines - 1 do
    local span, after = inlines[i], inlines[i + 1]
    if span.t == "Span" and span.classes:includes("ci") and after.t == "Str"
        and after.text:sub(1, 1) == "%" then
      for j, x in ipairs(span.content) do
        if x.t == "Str" and x.text == "\u{00A0}[" then
          span.content:insert(j, pandoc.Str("%"))
          break
        end
      end
      after.text = after.text:sub(2)
    end
  end
  return inlines
end

return {chooser, {Span = Span, Code = Code}, {Inlines = percent_inside}, {Div = Div},
        {Pandoc = Pandoc}}
