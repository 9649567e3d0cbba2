-- index.lua: the book ends with an index of identifiers.
--
-- Every function and type a header of code/ exports (IPCTAX_HEADERS, the
-- tangled headers the Makefile lists) gets an entry: what it is, the header
-- that exports it, the chunk that defines it, and every chunk whose code
-- uses it, each a link to the piece of the chunk by its label (⟨name 12⟩,
-- 12), the labels chunks.lua gives the same pieces in the page and in the
-- PDF. The index is made at every weave from the sources as tangled, so it
-- cannot fall behind them: a function added to a header is in the next
-- weave's index.
--
-- Why here and not in C: the index is about chunks, and the chunks exist
-- only in the weave (the tangler reads them, but their labels, order and
-- anchors are chunks.lua's); a filter reads the headers, finds the pieces
-- by their text in the document it is weaving, and leaves the links to
-- chunks.lua, which renders them as every other chunk link (a Span of class
-- "chunk-ref", name= and piece=). It runs right after chapters.lua, which
-- joins the chapters, so that everything after it sees the index as part
-- of the book: reader.lua packs it with Part III in the page, crossref.lua
-- leaves its heading unnumbered, like the references', and chunks.lua
-- links its entries.
--
-- What counts. Exported: a header's top-level declarations, comments and
-- the preprocessor aside: a function's prototype (or its definition, for a
-- static inline one), the names declared with a function type (summarizer
-- summarize_run, ...), a struct, union or enum with a tag (or made by a
-- macro of the header that declares one, ROW_TYPE(run_row, ...)), a
-- typedef. Not macros, variables, or enum constants. Defined: for a function, the first
-- piece (in the book's order) where its name, at the start of a line, is
-- followed by its parameters and a body; for a struct, union or enum, the
-- piece with its tag and a body; for a typedef, the piece that holds it.
-- Used: every other C piece whose code has the name as a word. A name that
-- no piece defines is an error of the weave: the index would point nowhere.

local HEADERS = os.getenv("IPCTAX_HEADERS") or ""

-- --- Reading the headers ------------------------------------------------------

-- The header's code with comments, strings and preprocessor lines blanked.
local function code_only(text)
  text = text:gsub("/%*.-%*/", " "):gsub("//[^\n]*", " ")
  text = text:gsub('"[^"\n]*"', '""'):gsub("'[^'\n]*'", "''")
  text = text:gsub("\\\n", " ")
  return (("\n" .. text):gsub("\n[ \t]*#[^\n]*", "\n"))
end

-- Top-level declarations: text up to a ';' outside braces, or up to the
-- brace that ends a function's body.
local function declarations(code)
  local out, start, depth = {}, 1, 0
  for i = 1, #code do
    local ch = code:sub(i, i)
    if ch == "{" then
      depth = depth + 1
    elseif ch == "}" then
      depth = depth - 1
      local text = code:sub(start, i)
      if depth == 0 and text:match("%)%s*{") and not text:match("^%s*typedef")
         and not text:match("^%s*[%w_%s]*%f[%w_]struct%f[^%w_]") then
        out[#out + 1] = text               -- a function defined in the header
        start = i + 1
      end
    elseif ch == ";" and depth == 0 then
      out[#out + 1] = code:sub(start, i)
      start = i + 1
    end
  end
  return out
end

local KEYWORDS = {
  ["const"] = true, ["static"] = true, ["inline"] = true, ["extern"] = true, ["void"] = true,
  ["int"] = true, ["char"] = true, ["double"] = true, ["long"] = true, ["unsigned"] = true,
  ["struct"] = true, ["enum"] = true, ["union"] = true, ["typedef"] = true, ["size_t"] = true,
  ["__attribute__"] = true,
}

local function without_bodies(text)
  return (text:gsub("%b{}", " "))
end

-- The entries one declaration exports: {name, kind}. type_macros names the
-- header's macros that declare a struct named by their first argument
-- (ROW_TYPE(run_row, ...) in report/model.h).
local function exported(decl, function_types, type_macros, add)
  local text = without_bodies(decl):gsub("%s+", " ")
  text = text:gsub("__attribute__%s*%b()", "")
  local macro, made = text:match("^%s*([%u_][%u%d_]*)%s*%(%s*([%a_][%w_]*)")
  if macro and type_macros[macro] then
    add("struct " .. made, "type", macro)
    return
  end
  if text:match("^%s*typedef%f[^%w_]") then
    local name = text:match("%(%s*%*%s*([%a_][%w_]*)%s*%)%s*%(")        -- (*name)(...)
      or text:match("([%a_][%w_]*)%s*%(") or text:match("([%a_][%w_]*)%s*[%[;]")
    if name then
      add(name, "type")
      if text:match(name .. "%s*%(") then function_types[name] = true end
    end
    return
  end
  local tag_kind, tag = text:match("^%s*(%a+)%s+([%a_][%w_]*)%s*;?%s*$")  -- struct x; struct x {}
  if (tag_kind == "struct" or tag_kind == "enum" or tag_kind == "union") and tag then
    add(tag_kind .. " " .. tag, "type")
    return
  end
  if decl:match("^%s*(%a+)%s+[%a_][%w_]*%s*{") and not decl:match("%)%s*{") then
    local kind, name = decl:match("^%s*(%a+)%s+([%a_][%w_]*)%s*{")
    if kind == "struct" or kind == "enum" or kind == "union" then add(kind .. " " .. name, "type") end
    return
  end
  local before = text:match("^(.-)%(")
  if before then
    local name = before:match("([%a_][%w_]*)%s*$")
    if name and not KEYWORDS[name] and name:match("%l") then add(name, "function") end
    return
  end
  local first, rest = text:match("^%s*([%a_][%w_]*)%s+(.-)%s*;?%s*$")
  if first and function_types[first] then
    for name in rest:gmatch("[%a_][%w_]*") do add(name, "function") end
  end
end

local function read_file(path)
  local f = io.open(path, "r")
  if not f then error("index.lua: cannot read " .. path .. " (IPCTAX_HEADERS)") end
  local text = f:read("a")
  f:close()
  return text
end

-- Every exported identifier: name -> {name, kind, header, macro}.
local function identifiers()
  local out, function_types, type_macros = {}, {}, {}
  for path in HEADERS:gmatch("%S+") do
    local text = read_file(path)
    for macro, param in text:gmatch("#define%s+([%u_][%u%d_]*)%(([%a_][%w_]*)[^)]*%)%s+struct%s+") do
      if text:find("#define%s+" .. macro .. "%(" .. param .. "[^)]*%)%s+struct%s+" .. param .. "%f[^%w_]") then
        type_macros[macro] = true
      end
    end
    for _, decl in ipairs(declarations(code_only(text))) do
      exported(decl, function_types, type_macros, function(name, kind, macro)
        if not out[name] then out[name] = {name = name, kind = kind, header = path, macro = macro} end
      end)
    end
  end
  return out
end

-- --- Finding them in the chunks --------------------------------------------------

local function chunk_name(b)
  return b.attributes["file"] or (b.identifier ~= "" and b.identifier) or nil
end

-- Every piece of every chunk, in the book's order: {name, index, text, c, words}.
local function pieces_of(blocks)
  local out, count = {}, {}
  pandoc.walk_block(pandoc.Div(blocks), {CodeBlock = function(b)
    local name = chunk_name(b)
    if not name then return nil end
    count[name] = (count[name] or 0) + 1
    local words = {}
    for w in b.text:gmatch("[%a_][%w_]*") do words[w] = true end
    out[#out + 1] = {name = name, index = count[name], text = b.text,
                     c = b.classes:includes("c"), words = words}
  end})
  return out
end

-- Whether text defines the function name: the name at the start of a line
-- (after its return type), its parameters, then a body.
local function defines_function(text, name)
  for line_start, rest in ("\n" .. text):gmatch("\n()([%a_][^\n]*)") do
    local at = rest:find("%f[%w_]" .. name .. "%s*%(")
    if at and not rest:sub(1, at - 1):find("[=;,(]") then
      local from = line_start + at - 1
      local open = text:find("%(", from)
      local params = open and text:match("^%b()", open)
      if params and text:sub(open + #params):match("^%s*{") then return true end
    end
  end
  return false
end

local function defines(piece, entry)
  local name = entry.name
  if entry.kind == "function" then return defines_function(piece.text, name) end
  local kind, tag = name:match("^(%a+) ([%w_]+)$")
  if entry.macro then
    return piece.text:find("%f[%w_]" .. entry.macro .. "%s*%(%s*" .. tag .. "%f[^%w_]") ~= nil
  end
  if kind then return piece.text:find(kind .. "%s+" .. tag .. "%s*{") ~= nil end
  return piece.text:find("typedef[^;]-%f[%w_]" .. name .. "%f[^%w_]") ~= nil
end

-- --- The index ------------------------------------------------------------------------

local function ref(piece, bare)
  return pandoc.Span({}, pandoc.Attr("", {"chunk-ref"},
    {{"name", piece.name}, {"piece", tostring(piece.index)}, {"bare", bare and "1" or "0"}}))
end

local function entry_inlines(entry, def, uses)
  local inl = pandoc.List({pandoc.Code(entry.name), pandoc.Str(","), pandoc.Space(),
    pandoc.Str(entry.kind == "function" and "function" or "type"), pandoc.Space(),
    pandoc.Str("of"), pandoc.Space(), pandoc.Code((entry.header:gsub("^code/", ""))),
    pandoc.Str(":"), pandoc.Space(), pandoc.Str("defined"), pandoc.Space(), pandoc.Str("in"),
    pandoc.Space(), ref(def, false)})
  if #uses > 0 then
    inl:extend({pandoc.Str(";"), pandoc.Space(), pandoc.Str("used"), pandoc.Space(),
                pandoc.Str("in"), pandoc.Space()})
    for i, u in ipairs(uses) do
      if i > 1 then inl:extend({pandoc.Str(","), pandoc.Space()}) end
      inl:insert(ref(u, true))
    end
  end
  inl:insert(pandoc.Str("."))
  return inl
end

-- Plain words as inlines.
local function words(text)
  local out = pandoc.List()
  for w in text:gmatch("%S+") do
    if #out > 0 then out:insert(pandoc.Space()) end
    out:insert(pandoc.Str(w))
  end
  return out
end

local function index_blocks(blocks)
  local ids = identifiers()
  local pieces = pieces_of(blocks)
  local names, undefined = {}, {}
  for name in pairs(ids) do names[#names + 1] = name end
  table.sort(names, function(a, b)
    local x = a:match("^%a+ ([%w_]+)$") or a
    local y = b:match("^%a+ ([%w_]+)$") or b
    if x:lower() ~= y:lower() then return x:lower() < y:lower() end
    return a < b
  end)
  local items = {}
  for _, name in ipairs(names) do
    local entry = ids[name]
    local word = name:match("^%a+ ([%w_]+)$") or name
    local def, uses = nil, {}
    for _, p in ipairs(pieces) do
      if p.c and not def and defines(p, entry) then def = p end
    end
    if not def then
      undefined[#undefined + 1] = name .. " (" .. entry.header .. ")"
    else
      for _, p in ipairs(pieces) do
        if p.c and p ~= def and p.words[word] then uses[#uses + 1] = p end
      end
      items[#items + 1] = {pandoc.Plain(entry_inlines(entry, def, uses))}
    end
  end
  if #undefined > 0 then
    error("index.lua: exported, but no chunk defines them: " .. table.concat(undefined, "; "))
  end
  local heading = pandoc.Header(1, "Index of identifiers",
                                pandoc.Attr("sec:identifiers", {"unnumbered"}))
  local intro = words("Every function and type that a header of")
  intro:extend({pandoc.Space(), pandoc.Code("code/"), pandoc.Space()})
  intro:extend(words("exports (" .. #items .. " of them), the header that exports it, the "
    .. "chunk that defines it, and every chunk that uses it, by the chunks' labels; made "
    .. "from the tangled sources at each weave."))
  intro = pandoc.Para(intro)
  return {heading, intro, pandoc.BulletList(items)}
end

local function Pandoc(doc)
  if HEADERS == "" then return nil end      -- a weave of a part alone (a test's)
  local out = pandoc.List(doc.blocks)
  out:extend(index_blocks(doc.blocks))
  return pandoc.Pandoc(out, doc.meta)
end

return {{Pandoc = Pandoc}}
