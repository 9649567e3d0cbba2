-- figures.lua: one figure source, two renderings.
--
-- A figure is written once as ![caption](figures/NAME.svg){#fig:id}. In HTML
-- the SVG that gnuplot wrote is put inline (not as an <img>), so that its
-- scripts and hover titles work and the page stays one self-contained file;
-- its ids are prefixed with the figure's id so two figures cannot collide. In
-- LaTeX the same figure is included as figures/NAME.pdf, the vector PDF that
-- gnuplot wrote beside the SVG.

local is_latex = FORMAT:match("latex") ~= nil

local function read(path)
  local f = io.open(path, "r")
  if not f then error("figures.lua: " .. path .. " is missing; run make figures") end
  local text = f:read("a")
  f:close()
  return text
end

local function inline_svg(path, prefix)
  local svg = read(path)
  svg = svg:gsub("^.-<svg", "<svg", 1)                 -- drop the XML prolog and doctype
  svg = svg:gsub('id="', 'id="' .. prefix .. "-")
  svg = svg:gsub("url%(#", "url(#" .. prefix .. "-")
  svg = svg:gsub('href="#', 'href="#' .. prefix .. "-")
  return svg
end

local function Para(p)
  if #p.content ~= 1 or p.content[1].t ~= "Image" then return nil end
  local img = p.content[1]
  if not img.src:match("^figures/.*%.svg$") then return nil end
  if is_latex then
    img.src = img.src:gsub("%.svg$", ".pdf")
    return p
  end
  local id = img.identifier
  local prefix = id:gsub("[^%w]", "-")
  local caption = pandoc.write(pandoc.Pandoc({pandoc.Plain(img.caption)}), "html")
  return pandoc.RawBlock("html", '<figure id="' .. id .. '" class="plot">\n'
    .. inline_svg(img.src, prefix) .. "\n<figcaption>" .. caption .. "</figcaption>\n</figure>")
end

return {{Para = Para}}
