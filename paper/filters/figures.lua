-- figures.lua: one figure source, two renderings.
--
-- A figure is written once as ![caption](figures/NAME.svg){#fig:id}. In LaTeX
-- the same figure is included as figures/NAME.pdf, the vector PDF that
-- gnuplot wrote beside the SVG. In HTML the SVG that gnuplot wrote (with the
-- svg terminal's "mouse" option) is put inline, not as an <img>, so that the
-- page stays one self-contained file and paper/web/figures.js can make it
-- interactive. On the way in, gnuplot's own scripting is taken out and what
-- it knew is kept as markup that figures.js reads:
--
--   <script> elements, on...="" handlers   removed (gnuplot_svg.js is not
--                                          on the page; ours is)
--   the script of axis settings            data-gnuplot='{"plot_xmin":...}'
--                                          on the <svg>: plot area and axis
--                                          ranges, to map the pointer to data
--   <g id="gnuplot_plot_N"><title>T</title>  class="gp-plot" data-title="T"
--   <g id="gnuplot_plot_N_keyentry" ...>   class="gp-keyentry" (two per
--                                          series, text and sample; no id)
--   showHypertext(evt,'TEXT') groups       class="gp-point" data-text="TEXT"
--                                          (from "with labels hypertext")
--
-- Every remaining id, and every reference to one, is prefixed with the
-- figure's id, so that several figures on one page cannot collide. Groups
-- that draw nothing, attributes that restate SVG's defaults and the
-- indentation go, which makes the page smaller and draws the same. The SVG
-- sits in a <div class="plot-frame">, the box that scrolls sideways on a
-- phone (style.css keeps a figure at least 640px wide, so its text stays
-- legible).
--
-- The figures are read from $IPCTAX_FIGURES (the weave's staging folder;
-- by default figures/, the committed ones), in LaTeX too. Each figure's
-- caption ends with links to the data it draws: the files its script
-- (figures/NAME.gp) plots, found in the script as WOVEN."/FILE.csv" (the
-- summary's figure files, committed beside the figure as figures/FILE.csv by
-- the weave) and DATA."/FILE.csv" (files of data/). The links are to the
-- copies the weave publishes inside site/ (site/figures/FILE.csv,
-- site/data/FILE.csv), so that they work when site/ is served on its own.

local is_latex = FORMAT:match("latex") ~= nil
local FIGURES = os.getenv("IPCTAX_FIGURES") or "figures"

local function read(path)
  local f = io.open(path, "r")
  if not f then error("figures.lua: " .. path .. " is missing; run make figures") end
  local text = f:read("a")
  f:close()
  return text
end

local function attr_escape(s)
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- XML text (as gnuplot escapes it) back to plain text.
local function xml_unescape(s)
  return (s:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&apos;", "'")
           :gsub("&amp;", "&"))
end

-- gnuplot_svg.KEY = VALUE; lines -> one JSON object, in the order written.
local function settings_json(script)
  local fields = {}
  for key, value in script:gmatch("gnuplot_svg%.([%w_]+)%s*=%s*(.-);") do
    if not (value:match("^%-?[%d.]+[eE]?[-+]?%d*$") or value == "true" or value == "false"
            or value == "null" or value:match('^".*"$')) then
      value = '"' .. value:gsub('["\\]', "\\%0") .. '"'
    end
    fields[#fields + 1] = '"' .. key .. '":' .. value
  end
  return "{" .. table.concat(fields, ",") .. "}"
end

-- The text gnuplot put in showHypertext(evt,'...'): \n is a line break.
local function hypertext(js)
  return (js:gsub("\\(.)", function(c) return c == "n" and "\n" or c end))
end

local function inline_svg(path, prefix)
  local svg = read(path)
  svg = svg:gsub("^.-<svg", "<svg", 1)                 -- drop the XML prolog and doctype
  -- What gnuplot's script knew about the axes, kept as data.
  local settings = nil
  svg = svg:gsub("<script[^>]*>%s*<!%[CDATA%[(.-)%]%]>%s*</script>", function(body)
    if body:match("gnuplot_svg%.plot_xmin") then settings = settings_json(body) end
    return ""
  end)
  svg = svg:gsub("<script[^>]*/>", "")
  svg = svg:gsub("<script.-</script>", "")
  -- Points that carry a value: hypertext labels.
  svg = svg:gsub("<g onmousemove=\"gnuplot_svg%.showHypertext%(evt,'(.-)'%)\"[^>]*>%s*<title>[^<]*</title>",
    function(text)
      return '<g class="gp-point" data-text="' .. attr_escape(hypertext(text)) .. '">'
    end)
  -- Series and their key entries.
  svg = svg:gsub('<g id="gnuplot_plot_(%d+)_keyentry"[^>]*>', '<g class="gp-keyentry" visibility="visible">')
  svg = svg:gsub('<g id="gnuplot_plot_(%d+)"%s*>%s*<title>(.-)</title>', function(n, title)
    local keyed = title ~= "gnuplot_plot_" .. n
    return '<g id="gnuplot_plot_' .. n .. '" class="gp-plot"'
      .. (keyed and (' data-title="' .. attr_escape(xml_unescape(title)) .. '"') or "") .. ">"
  end)
  -- gnuplot's own mouse machinery: the frame that caught clicks, the
  -- coordinate box and hypertext box it drew into, its grid button, its
  -- handlers.
  svg = svg:gsub("<!%-%- Tie mousing.-%-%->%s*<rect[^>]*/>", "")
  svg = svg:gsub("<!%-%-[^>]-%-%->", "")
  svg = svg:gsub('%s*<text id="coord_text".-</text>', "")
  svg = svg:gsub('%s*<rect id="hypertextbox".-/>', "")
  svg = svg:gsub('%s*<text id="hypertext".-</text>', "")
  svg = svg:gsub('%s*<image id="hyperimage".-/>', "")
  svg = svg:gsub("%s*<image[^>]-gnuplot_svg%.toggleGrid[^>]-/>", "")
  svg = svg:gsub('%s+on%a+="[^"]*"', "")
  svg = svg:gsub("%s+on%a+='[^']*'", "")
  -- The document's title ("Gnuplot") would be every point's tooltip.
  svg = svg:gsub("<title>Gnuplot</title>%s*", "", 1)
  svg = svg:gsub("<desc>.-</desc>%s*", "", 1)
  -- Prefix ids and references to them, whichever quotes gnuplot used.
  svg = svg:gsub("([%s])id=([\"'])", "%1id=%2" .. prefix .. "-")
  svg = svg:gsub("url%(#", "url(#" .. prefix .. "-")
  svg = svg:gsub("href=([\"'])#", "href=%1#" .. prefix .. "-")
  -- SVG 2 reads a plain href; the xlink prefix is six bytes on every mark.
  svg = svg:gsub("xlink:href=", "href=")
  -- Smaller, not different: groups that draw nothing, attributes that only
  -- restate SVG's defaults, and the indentation between elements go.
  svg = svg:gsub(' stroke%-linecap="butt"', ""):gsub(' stroke%-linejoin="miter"', "")
  svg = svg:gsub('<g fill="none" color="[^"]*" stroke="[^"]*" stroke%-width="[%d.]+"%s*>%s*</g>%s*', "")
  svg = svg:gsub(">%s+<", ">\n<")
  -- Coordinates to a tenth of a unit (the SVG is 760 units wide, shown at
  -- most that many pixels), colours as hex, and no blank runs inside paths.
  local function tenths(text) return (text:gsub("(%d+%.%d)%d+", "%1")) end
  svg = svg:gsub(" d=([\"'])(.-)%1", function(q, d)
    return " d=" .. q .. tenths(d):gsub("%s+", " "):gsub(" $", "") .. q
  end)
  svg = svg:gsub('transform="translate%(([^)]*)%)', function(xy)
    return 'transform="translate(' .. tenths(xy) .. ')'
  end)
  svg = svg:gsub("rgb%(%s*(%d+),%s*(%d+),%s*(%d+)%)", function(r, g, b)
    return string.format("#%02x%02x%02x", tonumber(r), tonumber(g), tonumber(b))
  end)
  -- gnuplot wraps every mark in a group that only restates the drawing
  -- defaults (a few hundred per figure, seventy bytes each); each distinct
  -- set becomes one class of the figure's own style sheet.
  local classes, rules = {}, {}
  svg = svg:gsub('<g fill="none" color="(%w+)" stroke="([^"]+)" stroke%-width="([%d.]+)"%s*>',
    function(color, stroke, width)
      local key = color .. " " .. stroke .. " " .. width
      if not classes[key] then
        classes[key] = prefix .. "-g" .. (#rules + 1)
        rules[#rules + 1] = "." .. classes[key] .. "{fill:none;color:" .. color .. ";stroke:"
          .. stroke .. ";stroke-width:" .. width .. "}"
      end
      return '<g class="' .. classes[key] .. '">'
    end)
  if #rules > 0 then
    svg = svg:gsub("^(<svg[^>]*>)", function(open)
      return open .. "\n<style>" .. table.concat(rules) .. "</style>"
    end, 1)
  end
  local extra = ' class="gp-figure"'
  if settings then extra = extra .. ' data-gnuplot="' .. attr_escape(settings) .. '"' end
  svg = svg:gsub("^<svg", function() return "<svg" .. extra end, 1)
  return svg
end

-- The data files a figure's script plots, in the order it names them:
-- {label, href}, for the caption.
local function data_links(name)
  local script = read("figures/" .. name .. ".gp")
  local out, seen = {}, {}
  for dir, file in script:gmatch("(%u+)%.[\"']/([%w_%.%-]+%.csv)") do
    local href = dir == "WOVEN" and ("figures/" .. file) or dir == "DATA" and ("data/" .. file)
    if href and not seen[href] then
      seen[href] = true
      out[#out + 1] = {file, href}
    end
  end
  return out
end

local function data_html(name)
  local links = {}
  for _, l in ipairs(data_links(name)) do
    links[#links + 1] = '<a href="' .. attr_escape(l[2]) .. '">' .. attr_escape(l[1]) .. "</a>"
  end
  if #links == 0 then return "" end
  return '<span class="figure-data">Data: ' .. table.concat(links, ", ") .. "</span>"
end

local function Para(p)
  if #p.content ~= 1 or p.content[1].t ~= "Image" then return nil end
  local img = p.content[1]
  local name = img.src:match("^figures/(.*)%.svg$")
  if not name then return nil end
  if is_latex then
    img.src = FIGURES .. "/" .. name .. ".pdf"
    return p
  end
  img.src = FIGURES .. "/" .. name .. ".svg"
  local id = img.identifier
  local prefix = id:gsub("[^%w]", "-")
  local caption = pandoc.write(pandoc.Pandoc({pandoc.Plain(img.caption)}), "html")
  local label = pandoc.utils.stringify(img.caption)
  -- A function, not a string, as the replacement: a caption's "95%" would
  -- otherwise read as a capture.
  local svg = inline_svg(img.src, prefix):gsub("^<svg", function()
    return '<svg aria-label="' .. attr_escape(label) .. '"'
  end, 1)
  return pandoc.RawBlock("html", '<figure id="' .. id .. '" class="plot" data-name="'
    .. attr_escape(name) .. '">\n<div class="plot-frame">'
    .. svg .. "</div>\n<figcaption>" .. caption .. " " .. data_html(name)
    .. "</figcaption>\n</figure>")
end

return {{Para = Para}}
