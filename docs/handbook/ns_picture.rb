# SPDX-License-Identifier: MIT
# ns_picture.rb: the lab's PID namespace tree, as the tutor's `tree` command
# prints it, drawn as an SVG picture for the handbook (handbook.rb): each
# namespace a box inside its parent's box, each process a line in its box
# with its PID at every level from the lab's down to its own.
#
#   pid:[4026532214] level 1 (the lab's namespace), 2 processes
#   |-- 1 lab-init
#   |-- 4 multi_pidns
#   `-- pid:[4026532216] level 2, 1 process
#       `-- 1 multi_pidns (NSpid: 5 1)
#
# A line's depth is where its name starts, four columns a level (the format of
# render_format_tree() in shell/render/render_procfs.c).

require 'cgi'

module PidnsHandbook
  module NsPicture
    Namespace = Struct.new(:inode, :level, :note, :processes, :children)
    Process = Struct.new(:pid, :name, :nspid)

    NS_LINE = /\Apid:\[(\d+)\] level (\d+)(?: \(([^)]*)\))?/.freeze
    PROC_LINE = /\A(\d+) (.+?)(?: \(NSpid: ([\d ]+)\))?\z/.freeze

    # The tree of the lines, or nil when they are not a `tree` output.
    def self.parse(lines)
      root = nil
      open = [] # open[d] = the namespace whose members are at depth d + 1
      lines.each do |line|
        start = line.index(/[0-9p]/) or next
        depth = start / 4
        text = line[start..]
        if (m = NS_LINE.match(text))
          ns = Namespace.new(m[1], m[2].to_i, m[3], [], [])
          if depth.zero?
            root = ns
          else
            parent = open[depth - 1] or return nil
            parent.children << ns
          end
          open[depth] = ns
          open.slice!(depth + 1..)
        elsif (m = PROC_LINE.match(text)) && depth.positive? && open[depth - 1]
          nspid = m[3] ? m[3].split.map(&:to_i) : [m[1].to_i]
          open[depth - 1].processes << Process.new(m[1].to_i, m[2], nspid)
        else
          return nil
        end
      end
      root
    end

    def self.count(ns)
      1 + ns.children.sum { |c| count(c) }
    end

    WIDTH = 640
    INSET = 12
    HEAD = 24
    ROW = 19
    GAP = 8
    FILLS = %w[#fdf6e3 #eef5fb #eefaf0 #fbeef3 #f3effa #fbf6e8].freeze

    # Boxes drawn inside one another at most; a deeper chain (lesson 14 nests
    # 31) ends in a line saying how many more there are (the text has them).
    MAX_DEPTH = 7

    def self.deepest(ns)
      ns.children.empty? ? ns.level : ns.children.map { |c| deepest(c) }.max
    end

    def self.height(ns, depth = 0)
      return ROW + GAP if depth >= MAX_DEPTH
      HEAD + ns.processes.size * ROW + ns.children.sum { |c| height(c, depth + 1) + GAP } + GAP
    end

    # "PID 1 here; by level 1-2: 5 1": the process's number at every level,
    # from the outermost the tree shows down to its own.
    def self.pids_text(ns, pr)
      return "PID #{pr.pid}" if pr.nspid.size == 1
      first = ns.level - pr.nspid.size + 1
      "PID #{pr.pid} here; by level #{first}-#{ns.level}: #{pr.nspid.join(' ')}"
    end

    def self.draw(ns, x, y, width, out, depth = 0)
      if depth >= MAX_DEPTH
        more = "... #{count(ns)} more namespace(s), down to level #{deepest(ns)}: see the text"
        out << %(<text class="more" data-more="#{count(ns)}" x="#{x + 8}" y="#{y + 13}" font-style="italic">#{CGI.escapeHTML(more)}</text>)
        return
      end
      h = height(ns, depth)
      fill = FILLS[(ns.level - 1) % FILLS.size]
      title = "pid:[#{ns.inode}] · level #{ns.level}#{ns.note ? " (#{ns.note})" : ''}"
      out << %(<g class="pidns" data-inode="#{ns.inode}" data-level="#{ns.level}">)
      out << %(<rect x="#{x}" y="#{y}" width="#{width}" height="#{h}" rx="6" fill="#{fill}" stroke="#7a2518" stroke-width="1.2"/>)
      out << %(<text x="#{x + 8}" y="#{y + 16}" font-weight="bold">#{CGI.escapeHTML(title)}</text>)
      row = y + HEAD
      ns.processes.each do |pr|
        out << %(<text class="process" x="#{x + 16}" y="#{row + 13}" data-pid="#{pr.pid}">)
        out << %(<tspan font-weight="bold">#{CGI.escapeHTML(pr.name)}</tspan> )
        out << %(<tspan>#{CGI.escapeHTML(pids_text(ns, pr))}</tspan></text>)
        row += ROW
      end
      ns.children.each do |c|
        draw(c, x + INSET, row, width - 2 * INSET, out, depth + 1)
        row += height(c, depth + 1) + GAP
      end
      out << '</g>'
    end

    # The SVG document for the tree; label is its accessible title.
    def self.svg(root, label)
      h = height(root) + 2
      out = [%(<svg xmlns="http://www.w3.org/2000/svg" class="ns-picture" role="img" ) +
             %(width="#{WIDTH}" height="#{h}" viewBox="0 0 #{WIDTH} #{h}" ) +
             %(font-family="DejaVu Sans Mono, monospace" font-size="12" fill="#222">),
             "<title>#{CGI.escapeHTML(label)}</title>"]
      draw(root, 1, 1, WIDTH - 2, out)
      out << '</svg>'
      out.join("\n")
    end
  end
end
