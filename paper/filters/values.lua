-- values.lua: puts measured numbers and tables into the paper.
--
-- [key]{.num}                      -> the value ipctax-summary wrote for key
-- ::: {.datatable #tbl:x src=name}  -> the table in tables/name.csv, with the
--   caption ...caption... :::          div's text as its caption
-- ::: {.if-reduced} ... :::         -> kept only when the run was reduced
--
-- Values come from $IPCTAX_WOVEN/values.csv (default build/woven). A
-- placeholder whose key is missing stops the build, after every missing key
-- has been listed, so a number can never silently go stale or blank.

local woven = os.getenv("IPCTAX_WOVEN") or "build/woven"
local values = nil
local missing = {}

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
  local v = load_values()[key]
  if v == nil then
    missing[#missing + 1] = key
    return "??" .. key .. "??"
  end
  return v
end

-- How a value is printed: a leading minus is a minus sign (U+2212), not a
-- hyphen, as in the prose; the text in data/ is unchanged.
local function display(text)
  return (text:gsub("^%-(%d)", "\u{2212}%1"))
end

-- A long unbroken value (a SHA-256, say) may break between groups of eight
-- characters in the PDF; in HTML the style sheet lets it wrap anywhere.
local function value_inlines(text)
  text = display(text)
  if not FORMAT:match("latex") or #text <= 24 or text:find("[%s\128-\255]") then
    return {pandoc.Str(text)}
  end
  local out = {}
  for i = 1, #text, 8 do
    if i > 1 then out[#out + 1] = pandoc.RawInline("latex", "\\allowbreak{}") end
    out[#out + 1] = pandoc.Str(text:sub(i, i + 7))
  end
  return out
end

-- A value that is code (compiler flags, a command) is asked for as
-- [key]{.num .code} and printed verbatim as inline code: no minus sign.
local function Span(el)
  if not el.classes:includes("num") then return nil end
  local key = pandoc.utils.stringify(el.content)
  local attr = pandoc.Attr("", {"num"}, {{"title", "from data/: " .. key}})
  if el.classes:includes("code") then return pandoc.Code(value_of(key), attr) end
  return pandoc.Span(value_inlines(value_of(key)), attr)
end

-- Inside backticks a placeholder is only text and would be printed as
-- written; that is a mistake in the prose, so it stops the build.
local function Code(el)
  if el.text:match("^%[[%w%._%-]+%]{%.num[^}]*}$") then
    error("values.lua: placeholder inside backticks, " .. el.text ..
          "; write [key]{.num .code} for a value printed as code")
  end
end

local function cell(text)
  return {pandoc.Plain(value_inlines(text))}
end

-- A table whose cells would not fit the page side by side gets relative
-- column widths, so that LaTeX wraps its text columns instead of running
-- past the margin. A column asks for its longest cell, but at most
-- WIDEST_ASK characters, so one long column cannot starve the numbers.
local FITS_ON_A_LINE, WIDEST_ASK = 90, 40

local function column_widths(rows)
  local asks, natural, total = {}, 0, 0
  for c = 1, #rows[1] do
    local longest = 0
    for r = 1, #rows do
      local text = rows[r][c] or ""
      longest = math.max(longest, utf8.len(text) or #text)
    end
    natural = natural + longest + 2
    asks[c] = math.min(longest, WIDEST_ASK) + 2
    total = total + asks[c]
  end
  local widths = {}
  for c = 1, #rows[1] do
    widths[c] = natural > FITS_ON_A_LINE and 0.97 * asks[c] / total or 0
  end
  return widths
end

local function looks_numeric(text)
  return text:match("^%-?[%d,]+%.?%d*$") ~= nil
end

-- Builds a pandoc Table from tables/NAME.csv, numeric columns right-aligned.
local function data_table(div)
  local name = div.attributes["src"]
  local rows = read_csv(woven .. "/tables/" .. name .. ".csv")
  if not rows or #rows < 1 then
    missing[#missing + 1] = "table " .. name
    return pandoc.Para({pandoc.Str("??table " .. name .. "??")})
  end
  local header, aligns, widths, body = {}, {}, {}, {}
  for c, text in ipairs(rows[1]) do
    header[c] = cell(text)
    local numeric = #rows > 1
    for r = 2, #rows do
      if rows[r][c] ~= "" and not looks_numeric(rows[r][c]) then numeric = false end
    end
    aligns[c] = numeric and pandoc.AlignRight or pandoc.AlignLeft
  end
  widths = column_widths(rows)
  for r = 2, #rows do
    local cells = {}
    for c = 1, #rows[1] do cells[c] = cell(rows[r][c] or "") end
    body[#body + 1] = cells
  end
  local caption = {}
  if div.content[1] then caption = div.content[1].content end
  local simple = pandoc.SimpleTable(caption, aligns, widths, header, body)
  return pandoc.utils.from_simple_table(simple)
end

local function Div(el)
  if el.classes:includes("datatable") then
    local tbl = data_table(el)
    return pandoc.Div({tbl}, pandoc.Attr(el.identifier, {"datatable"}))
  end
  if el.classes:includes("if-reduced") then
    if load_values()["run.reduced"] == "yes" then return el end
    return {}
  end
  return nil
end

local function Pandoc(doc)
  if #missing > 0 then
    io.stderr:write("values.lua: the paper asks for values that data/ does not give:\n")
    for _, key in ipairs(missing) do io.stderr:write("  " .. key .. "\n") end
    error("values.lua: " .. #missing .. " missing value(s); see above")
  end
  return doc
end

-- Spans first (they may sit inside table captions), then divs, then the check.
return {{Span = Span, Code = Code}, {Div = Div}, {Pandoc = Pandoc}}
